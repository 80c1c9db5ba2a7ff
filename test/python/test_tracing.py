"""Tracing from Python: emission observers get each emit's record, and the
tracer that setup() installs from config writes the trace file."""

import json
import os
import subprocess

import pytest

import hookbus
from conftest import tool_call


def test_an_emission_observer_gets_each_emits_record(hooks):
    records = []
    hooks.on_emission(records.append).keep()
    hooks.on("tool_call", lambda event: {"decision": "deny", "reason": "no"}, label="guard").keep()
    hooks.emit(tool_call("rm -rf /"))
    [record] = records
    assert record["event"] == "tool_call"
    assert record["payload"]["input"] == {"command": "rm -rf /"}
    assert [(handler["label"], handler["action"]) for handler in record["handlers"]] == [("guard", "deny")]
    assert record["decided_by"] == {"handler": "guard", "source": ""}


def test_a_queued_emission_observer_gets_them_on_its_own_thread():
    hooks = hookbus.Hooks()
    records = []
    hooks.on_emission(records.append, queued=True).keep()
    for _ in range(10):
        hooks.emit("agent_start")
    del hooks  # delivers what its queue holds
    assert len(records) == 10


@pytest.mark.skipif(not os.environ.get("HOOKBUS_HOOKCTL"), reason="needs hookctl (HOOKBUS_HOOKCTL) to trust a project")
def test_the_tracer_setup_installs_from_config_writes_the_trace_file(tmp_path, scratch_home):
    project = tmp_path / "project"
    (project / ".hookbus").mkdir(parents=True)
    (project / ".hookbus/config.json").write_text('{"trace": {"jsonl": "trace/session.jsonl"}}\n')
    trusted = subprocess.run([os.environ["HOOKBUS_HOOKCTL"], "trust"], cwd=project, capture_output=True, text=True)
    assert trusted.returncode == 0, trusted.stderr
    hooks = hookbus.Hooks()
    hooks.on("tool_call", lambda event: {"decision": "deny", "reason": "no"}, label="guard").keep()
    with hookbus.setup(hooks, project_dir=project):
        hooks.emit(tool_call())
    lines = [json.loads(line) for line in (project / "trace/session.jsonl").read_text().splitlines()]
    records = [line for line in lines if line.get("event") == "tool_call"]
    assert len(records) == 1
    assert records[0]["decided_by"]["handler"] == "guard"
