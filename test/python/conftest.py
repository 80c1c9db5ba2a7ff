"""Shared helpers of the Python module's tests (run by CTest: python_tests)."""

import pytest

import hookbus


def tool_call(command="ls", tool_name="bash", call_id="1"):
    return hookbus.ToolCallEvent(tool_call_id=call_id, tool_name=tool_name, input={"command": command})


@pytest.fixture
def hooks():
    return hookbus.Hooks()


@pytest.fixture
def failures(hooks):
    """Every handler failure the bus reports, in order."""
    seen = []
    hooks.on_handler_error(seen.append).keep()
    return seen
