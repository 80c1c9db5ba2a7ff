"""A scripted agent session in Python (no network, no model), emitting the
lifecycle in the order a real engine does, with the extensions of the C++
demo (examples/agent_loop.cpp) written as Python handlers:

  - an input transform that expands the "/cleanup" shortcut,
  - a policy that denies `rm -rf` (fail-closed: a broken policy denies too),
  - a policy that asks the user before `git push` (here a scripted user who
    declines),
  - a redaction of API keys in tool results before they reach the model,
  - a catch-all tracer that prints every event's name.

Run with the package importable: PYTHONPATH=build/release/python python3
examples/python/agent_loop.py (docs/python.md). test/python runs it, and
mypy checks it against the package's type stubs.
"""

import re

import hookbus

SECRET = re.compile(r"sk-[A-Za-z0-9]{16,}")


def install_extensions(hooks: hookbus.Hooks) -> None:
    @hooks.on("input", label="shortcuts")
    def shortcuts(event: hookbus.InputEvent) -> hookbus.InputResult | None:
        if event.text != "/cleanup":
            return None
        return hookbus.InputResult(action="transform", text="Remove the build directory, then show what is left.")

    @hooks.on("tool_call", label="no-rm-rf", priority=-100, failure="fail_closed", tools="bash|shell")
    def no_rm_rf(event: hookbus.ToolCallEvent) -> hookbus.ToolCallResult | None:
        if "rm -rf" in str(event.input.get("command", "")):
            return hookbus.ToolCallResult(decision="deny", reason="rm -rf is not allowed; delete specific files instead")
        return None

    @hooks.on("tool_call", label="confirm-push", tools="bash|shell")
    def confirm_push(event: hookbus.ToolCallEvent) -> hookbus.ToolCallResult | None:
        if str(event.input.get("command", "")).startswith("git push"):
            return hookbus.ToolCallResult(decision="ask", reason="pushing publishes the branch")
        return None

    @hooks.on("tool_result", label="redact")
    def redact(event: hookbus.ToolResultEvent) -> hookbus.ToolResultResult | None:
        texts = [part.get("text", "") for part in event.content]
        if not any(SECRET.search(text) for text in texts):
            return None
        parts = [{"type": "text", "text": SECRET.sub("[REDACTED]", text)} for text in texts]
        return hookbus.ToolResultResult(content=parts)

    @hooks.subscribe(label="tracer")
    def tracer(event: object) -> None:
        print(f"  trace  {getattr(event, 'type')}")


class ScriptedEngine:
    def __init__(self, hooks: hookbus.Hooks) -> None:
        self.hooks = hooks

    def say(self, step: str, what: str) -> None:
        print(f"{step}: {what}")

    def run(self, text: str) -> None:
        self.hooks.emit("session_start", reason="startup")
        result = self.hooks.emit("input", text=text, source="interactive")
        if result.text is not None:
            text = result.text
            self.say("input", f"transformed to: {text}")
        self.hooks.emit("agent_start")
        self.hooks.emit("turn_start", turn_index=0, timestamp=1_700_000_000_000)
        for number, command in enumerate(["rm -rf build", "ls build && cat .env", "git push"], 1):
            self.execute(f"t{number}", command)
        self.hooks.emit("agent_end", messages=[])
        self.hooks.emit("session_shutdown", reason="quit")

    def execute(self, call_id: str, command: str) -> None:
        decision = self.hooks.emit("tool_call", tool_call_id=call_id, tool_name="bash", input={"command": command})
        if decision.decision == "deny":
            self.say("tool_call", f"{command!r} denied: {decision.reason} (by {(decision.decided_by or {}).get('handler')})")
            return
        if decision.decision == "ask":
            self.say("tool_call", f"{command!r} needs the user: {decision.reason}; the user declines")
            return
        output = "build/app.o\nOPENAI_API_KEY=sk-abcdefghijklmnopqrstuvwx"
        patched = self.hooks.emit("tool_result", tool_call_id=call_id, tool_name="bash", input={"command": command},
                                  content=[{"type": "text", "text": output}], is_error=False)
        content = patched.content if patched.content is not None else [{"type": "text", "text": output}]
        self.say("tool_result", f"{command!r} -> {content[0]['text']!r}")


def main() -> None:
    hooks = hookbus.Hooks()
    install_extensions(hooks)
    ScriptedEngine(hooks).run("/cleanup")


if __name__ == "__main__":
    main()
