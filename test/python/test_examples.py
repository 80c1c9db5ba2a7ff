"""The Python example runs, and mypy checks it and handlers against the
package's type stubs (made from the catalogue: lib/python/make_stubs.py)."""

import os
import pathlib
import subprocess
import sys

SOURCE = pathlib.Path(__file__).resolve().parents[2]
AGENT_LOOP = SOURCE / "examples" / "python" / "agent_loop.py"


def run_python(*args, cwd=None):
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=240, cwd=cwd,
                          env=dict(os.environ, MYPYPATH=os.environ.get("PYTHONPATH", "")))


def mypy(path, tmp_path):
    return run_python("-m", "mypy", "--strict", "--no-error-summary", "--cache-dir", str(tmp_path / "cache"), str(path))


def test_the_agent_loop_example_runs_the_demos_session():
    run = run_python(str(AGENT_LOOP))
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert "input: transformed to: Remove the build directory, then show what is left." in lines
    assert ("tool_call: 'rm -rf build' denied: rm -rf is not allowed; delete specific files instead (by no-rm-rf)"
            in lines)
    assert "tool_call: 'git push' needs the user: pushing publishes the branch; the user declines" in lines
    assert "tool_result: 'ls build && cat .env' -> 'build/app.o\\nOPENAI_API_KEY=[REDACTED]'" in lines
    assert "  trace  session_shutdown" in lines


def test_mypy_finds_nothing_wrong_in_the_example(tmp_path):
    run = mypy(AGENT_LOOP, tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr


def test_mypy_rejects_a_handler_returning_what_its_event_does_not_take(tmp_path):
    wrong = tmp_path / "wrong.py"
    wrong.write_text(
        "import hookbus\n"
        "hooks = hookbus.Hooks()\n"
        "def guard(event: hookbus.ToolCallEvent) -> str:\n"
        "    return 'deny'\n"
        "hooks.on('tool_call', guard).keep()\n"
        "name: int = hooks.emit('tool_call', tool_call_id='1', tool_name='bash').reason\n")
    run = mypy(wrong, tmp_path)
    assert run.returncode == 1
    assert "wrong.py:5:" in run.stdout, run.stdout  # the handler's return type
    assert "wrong.py:6:" in run.stdout, run.stdout  # reason is a str
