"""Python handlers called from the bus's threads, and emits from several
Python threads at once."""

import threading

import hookbus
from conftest import tool_call


def test_a_queued_subscriber_is_called_on_a_thread_of_its_own():
    hooks = hookbus.Hooks()
    threads = []
    delivered = threading.Event()

    @hooks.subscribe(queued=True)
    def audit(event):
        threads.append(threading.get_ident())
        delivered.set()

    hooks.emit("agent_start")
    assert delivered.wait(10)
    assert threads and threads[0] != threading.get_ident()


def test_destroying_a_bus_delivers_what_its_queue_holds():
    hooks = hookbus.Hooks()
    seen = []
    hooks.subscribe(lambda event: seen.append(event.type), queued=True).keep()
    for _ in range(50):
        hooks.emit("agent_start")
    del hooks
    assert len(seen) == 50


def test_emits_from_several_threads_each_get_their_own_result(hooks):
    hooks.on("tool_call", lambda event: {"decision": "deny", "reason": event.input["command"]}).keep()
    answers = {}

    def ask(command):
        answers[command] = hooks.emit(tool_call(command)).reason

    workers = [threading.Thread(target=ask, args=(f"cmd{i}",)) for i in range(8)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert answers == {f"cmd{i}": f"cmd{i}" for i in range(8)}


def test_a_disconnect_while_a_queued_subscriber_delivers_does_not_deadlock():
    hooks = hookbus.Hooks()
    started = threading.Event()

    def slow(event):
        started.set()

    connection = hooks.subscribe(slow, queued=True)
    for _ in range(20):
        hooks.emit("agent_start")
    assert started.wait(10)
    connection.disconnect()
    assert not connection.connected


def test_a_program_that_exits_with_events_queued_delivers_them_and_exits_cleanly(tmp_path):
    import os
    import subprocess
    import sys
    log = tmp_path / "delivered"
    script = tmp_path / "exits.py"
    script.write_text(
        "import hookbus\n"
        "hooks = hookbus.Hooks()\n"
        "def record(event):\n"
        f"    with open({str(log)!r}, 'a') as log:\n"
        "        log.write(event.type + '\\n')\n"
        "hooks.subscribe(record, queued=True).keep()\n"
        "for _ in range(500):\n"
        "    hooks.emit('agent_start')\n")
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, env=os.environ)
    assert run.returncode == 0, run.stderr
    assert log.read_text().count("agent_start") == 500


def test_emit_lets_other_python_threads_run_while_an_external_hook_runs(tmp_path, scratch_home):
    # The hook waits for a file that only another Python thread creates: were
    # the GIL held through the emit, that thread could not run, and the hook
    # would give up after 10 s and answer nothing.
    import time
    project = tmp_path / "project"
    hook = project / ".hookbus/hooks/waits"
    hook.parent.mkdir(parents=True)
    hook.write_text("#!/bin/sh\n"
                    "if [ \"$1\" = hook ]; then echo tool_call; exit 0; fi\n"
                    f"touch '{tmp_path}/started'\n"
                    "i=0\n"
                    f"while [ ! -e '{tmp_path}/go' ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done\n"
                    f"[ -e '{tmp_path}/go' ] && echo '{{\"decision\": \"deny\", \"reason\": \"the other thread ran\"}}'\n"
                    "exit 0\n")
    hook.chmod(0o755)

    def release_the_hook():
        for _ in range(1000):
            if (tmp_path / "started").exists():
                (tmp_path / "go").touch()
                return
            time.sleep(0.01)

    hooks = hookbus.Hooks()
    with hookbus.setup(hooks, project_dir=project, project_trust="trust_all"):
        other = threading.Thread(target=release_the_hook)
        other.start()
        result = hooks.emit(tool_call())
        other.join()
    assert (result.decision, result.reason) == ("deny", "the other thread ran")
