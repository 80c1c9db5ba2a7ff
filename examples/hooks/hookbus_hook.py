"""hookbus_hook: write a hookbus external hook in Python, standard library only.

    import hookbus_hook

    hook = hookbus_hook.Hook()

    @hook.on("tool_call")
    def no_deploy(payload):
        if payload["tool_name"] == "deploy":
            return hookbus_hook.refuse("deploys need a human")
        return None  # no change

    hook.main()

The one file answers all three of hookbus's calls (docs/external-hooks.md):

    HOOK hook    the event names handlers are registered for, one per line
    HOOK run     one event: the payload on stdin, the answer on stdout
    HOOK serve   a persistent hook: one request per line on stdin, one
                 answer line each on stdout, until stdin ends

A handler gets the payload (a dict: the event's JSON plus hookbus's extra
keys) and returns None for no change, or a dict of the event's result fields
(`{"decision": "deny", "reason": "..."}`); refuse(reason) is the refusal of
any event that can refuse. An exception fails that one event, which the
hook's failure policy then handles: under `run` the traceback goes to stderr
and the hook exits 1; under `serve` the answer is `{"id": N, "error": "..."}`
and the loop goes on. An answer JSON cannot encode (a set, NaN) fails the
event the same way. What a handler prints goes to stderr, which hookbus
logs: stdout carries the answers. Under `serve`, what the handlers keep in
memory lasts from one event to the next.

This file is a library, not a hook: keep it without its execute bit next to
the hooks that import it (hookbus ignores files it may not execute), and let
them find it, without leaving a __pycache__ directory in the hook directory
(a new file there changes the project's trust fingerprint), with

    sys.dont_write_bytecode = True
    sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))

or use the copy installed with hookbus, in share/hookbus/python
(PYTHONPATH=/usr/share/hookbus/python with the Debian package).
"""

import json
import sys
import traceback

__all__ = ["Hook", "refuse"]


def refuse(reason):
    """The answer that refuses the event (denies a tool call, rejects an input,
    cancels a session change...), with `reason`."""
    return {"blocked": True, "reason": reason}


class Hook:
    def __init__(self):
        self._handlers = {}

    def on(self, *events):
        """Registers the decorated function for these events (wire names such
        as "tool_call" or aliases such as "before_tool_call")."""
        if not events:
            raise ValueError("on() needs at least one event name")

        def register(handler):
            for event in events:
                if event in self._handlers:
                    raise ValueError(f"two handlers for the event {event!r}")
                self._handlers[event] = handler
            return handler

        return register

    def handle(self, event, payload):
        """The answer of the handler registered for `event`: None or a dict."""
        handler = self._handlers.get(event)
        if handler is None:
            raise LookupError(f"no handler for the event {event!r}")
        answer = handler(payload)
        if answer is not None and not isinstance(answer, dict):
            raise TypeError(f"the handler of {event!r} returned {type(answer).__name__}, not a dict or None")
        return answer

    def main(self, argv=None):
        """Answers the call in argv[1] and exits."""
        argv = sys.argv if argv is None else argv
        command = argv[1] if len(argv) == 2 else None
        if command == "hook":
            for event in self._handlers:
                print(event)
            sys.exit(0)
        if command in ("run", "serve"):
            # stdout carries the answers alone: a handler's print() goes to stderr
            answers, sys.stdout = sys.stdout, sys.stderr
            sys.exit(self._run(answers) if command == "run" else self._serve(answers))
        print(f"usage: {argv[0]} hook|run|serve (a hookbus hook: see docs/external-hooks.md)", file=sys.stderr)
        sys.exit(2)

    def _run(self, answers):
        payload = json.load(sys.stdin)
        try:
            answer = self.handle(payload.get("event") or payload["hook_event_name"], payload)
            text = "" if answer is None else json.dumps(answer, allow_nan=False)
        except Exception:
            traceback.print_exc()
            return 1
        answers.write(text)
        answers.flush()
        return 0

    def _serve(self, answers):
        for line in sys.stdin:
            request = json.loads(line)
            try:
                answer = dict(self.handle(request["event"], request["payload"]) or {})
                answer["id"] = request["id"]
                text = json.dumps(answer, allow_nan=False)
            except Exception as error:
                traceback.print_exc()
                text = json.dumps({"id": request["id"], "error": f"{type(error).__name__}: {error}"})
            answers.write(text + "\n")
            answers.flush()
        return 0
