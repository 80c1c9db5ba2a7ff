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


@pytest.fixture
def scratch_home(tmp_path, monkeypatch):
    """A home of the test's own: no config, hook, trust or managed layer of
    this machine's reaches setup()."""
    home = tmp_path / "home"
    for name, value in {"HOME": home, "XDG_CONFIG_HOME": home / ".config", "XDG_STATE_HOME": home / ".local/state",
                        "XDG_CACHE_HOME": home / ".cache", "HOOKBUS_MANAGED_DIR": home / "managed",
                        "CLAUDE_CONFIG_DIR": home / ".claude"}.items():
        monkeypatch.setenv(name, str(value))
    return home
