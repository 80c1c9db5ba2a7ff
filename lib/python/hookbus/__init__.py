"""hookbus: the hook runtime that agent engines embed.

The bus, the catalogue's events and results as classes (ToolCallEvent,
ToolCallResult, ...), and hookbus's exceptions, from the C++ library through
its module hookbus._hookbus. docs/python.md is the guide.
"""

from hookbus._hookbus import *  # noqa: F401,F403  (the module names what it exports)
from hookbus._hookbus import __version__  # noqa: F401
