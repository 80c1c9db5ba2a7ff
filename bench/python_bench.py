#!/usr/bin/env python3
"""hookbus's Python module against pluggy and blinker doing the same work, in
one process (docs/performance.md, "Python").

    PYTHONPATH=build/release/python python3 bench/python_bench.py [--json] [--quick]

Each case is timed for each system with the same handlers, which read one
field of the event as a hook would:

  emit/N      an event with N handlers that return nothing (N = 0, 1, 8);
  block/8     8 handlers of a gating event, the last of which refuses: the
              first answer wins (pluggy's firstresult, blinker's first
              non-None reply, hookbus's blocking reduction);
  catchall/1  one observer of every event (hookbus's catch-all subscriber;
              pluggy and blinker, which have none, with one handler of the
              event).

A run prints nanoseconds per emit and the ratio to pluggy, the best of
several repeats of each; --json prints them as one JSON object.
"""

import argparse
import importlib.metadata
import json
import sys
import timeit

import blinker
import pluggy

import hookbus

spec = pluggy.HookspecMarker("bench")
impl = pluggy.HookimplMarker("bench")


class Spec:
    @spec
    def tool_call(self, event):
        """Observed."""

    @spec(firstresult=True)
    def gate(self, event):
        """The first answer wins."""


class Reads:
    """A pluggy plugin whose handler reads one field."""

    @impl
    def tool_call(self, event):
        event.tool_name


class Gate:
    def __init__(self, refuses):
        self.refuses = refuses

    @impl
    def gate(self, event):
        if self.refuses and event.tool_name == "bash":
            return "deny"
        return None


def reads(event):
    event.tool_name


def reads_and_gates(refuses):
    def gate(event):
        if refuses and event.tool_name == "bash":
            return {"decision": "deny", "reason": "no"}
        return None
    return gate


def receiver():
    # blinker keeps one connection per receiver: each is a function of its own.
    def receive(sender, **kwargs):
        sender.tool_name
    return receive


def gate_receiver(refuses):
    def gate(sender, **kwargs):
        if refuses and sender.tool_name == "bash":
            return "deny"
        return None
    return gate


def hookbus_case(handlers, gate=False, catchall=False):
    hooks = hookbus.Hooks()
    event = hookbus.ToolCallEvent(tool_call_id="1", tool_name="bash", input={"command": "ls"})
    if catchall:
        hooks.subscribe(reads).keep()
    for i in range(handlers):
        hooks.on("tool_call", reads_and_gates(i == handlers - 1) if gate else reads).keep()
    return hooks, lambda: hooks.emit(event)


def pluggy_case(handlers, gate=False):
    manager = pluggy.PluginManager("bench")
    manager.add_hookspecs(Spec)
    # pluggy calls the last registered first: the refusing one is registered
    # first, so that it is called last, as in the others.
    for i in range(handlers):
        manager.register(Gate(i == 0) if gate else Reads())
    event = hookbus.ToolCallEvent(tool_call_id="1", tool_name="bash", input={"command": "ls"})
    hook = manager.hook.gate if gate else manager.hook.tool_call
    return manager, lambda: hook(event=event)


def blinker_case(handlers, gate=False):
    signal = blinker.Signal()
    kept = [gate_receiver(i == handlers - 1) if gate else receiver() for i in range(handlers)]
    for function in kept:
        signal.connect(function, weak=False)
    event = hookbus.ToolCallEvent(tool_call_id="1", tool_name="bash", input={"command": "ls"})
    if gate:
        def send():
            for _, answer in signal.send(event):
                if answer is not None:
                    return answer
            return None
        return signal, send
    return signal, lambda: signal.send(event)


def best_ns(call, quick):
    number = 2_000 if quick else 20_000
    return min(timeit.repeat(call, number=number, repeat=3 if quick else 7)) / number * 1e9


CASES = [
    ("emit/0", lambda: hookbus_case(0), lambda: pluggy_case(0), lambda: blinker_case(0)),
    ("emit/1", lambda: hookbus_case(1), lambda: pluggy_case(1), lambda: blinker_case(1)),
    ("emit/8", lambda: hookbus_case(8), lambda: pluggy_case(8), lambda: blinker_case(8)),
    ("block/8", lambda: hookbus_case(8, gate=True), lambda: pluggy_case(8, gate=True),
     lambda: blinker_case(8, gate=True)),
    ("catchall/1", lambda: hookbus_case(0, catchall=True), lambda: pluggy_case(1), lambda: blinker_case(1)),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--quick", action="store_true", help="fewer and shorter repeats (a smoke run)")
    arguments = parser.parse_args()
    results = {}
    for name, *makers in CASES:
        row = {}
        for system, make in zip(("hookbus", "pluggy", "blinker"), makers):
            owner, call = make()
            call()  # the first call warms caches
            row[system] = best_ns(call, arguments.quick)
            del owner
        row["hookbus/pluggy"] = row["hookbus"] / row["pluggy"]
        results[name] = row
    if arguments.json:
        versions = {"python": sys.version.split()[0], "pluggy": importlib.metadata.version("pluggy"),
                    "blinker": importlib.metadata.version("blinker"), "hookbus": hookbus.__version__}
        json.dump({"versions": versions, "cases": results}, sys.stdout, indent=2)
        print()
        return
    print(f"{'case':<12}{'hookbus ns':>12}{'pluggy ns':>12}{'blinker ns':>12}{'hookbus/pluggy':>16}")
    for name, row in results.items():
        print(f"{name:<12}{row['hookbus']:>12.0f}{row['pluggy']:>12.0f}{row['blinker']:>12.0f}"
              f"{row['hookbus/pluggy']:>16.2f}")


if __name__ == "__main__":
    main()
