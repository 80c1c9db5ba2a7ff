"""The reductions of docs/semantics.md, from Python: each as the C++ bus
folds it, with Python handlers."""

import hookbus
from conftest import tool_call


def test_the_first_deny_stops_the_chain(hooks):
    ran = []

    @hooks.on("tool_call")
    def first(event):
        ran.append("first")
        return hookbus.ToolCallResult(decision="deny", reason="first says no")

    @hooks.on("tool_call")
    def second(event):
        ran.append("second")

    result = hooks.emit(tool_call())
    assert (result.decision, result.reason) == ("deny", "first says no")
    assert ran == ["first"]


def test_decided_by_names_the_handler_that_refused(hooks):
    hooks.on("tool_call", lambda event: {"decision": "deny", "reason": "no"}, label="guard").keep()
    assert hooks.emit(tool_call()).decided_by == {"handler": "guard", "source": ""}


def test_a_rewritten_input_is_what_later_handlers_see(hooks):
    seen = []
    hooks.on("tool_call", lambda event: hookbus.ToolCallResult(input={"command": "ls -la"})).keep()
    hooks.on("tool_call", lambda event: seen.append(event.input["command"])).keep()
    result = hooks.emit(tool_call("ls"))
    assert result.input == {"command": "ls -la"}
    assert seen == ["ls -la"]


def test_a_dict_answers_as_the_result_with_those_fields(hooks):
    hooks.on("tool_call", lambda event: {"decision": "ask", "reason": "sure?"}).keep()
    result = hooks.emit(tool_call())
    assert (result.decision, result.reason) == ("ask", "sure?")


def test_none_is_no_change(hooks):
    hooks.on("tool_call", lambda event: None).keep()
    assert hooks.emit(tool_call()) == hookbus.ToolCallResult()


def test_a_patched_tool_result_chains_across_handlers(hooks):
    def redact(event):
        text = event.content[0]["text"]
        return {"content": [{"type": "text", "text": text.replace("secret", "[redacted]")}]}

    def shout(event):
        return {"content": [{"type": "text", "text": event.content[0]["text"].upper()}]}

    hooks.on("tool_result", redact).keep()
    hooks.on("tool_result", shout).keep()
    result = hooks.emit("tool_result", tool_call_id="1", tool_name="bash", input={},
                        content=[{"type": "text", "text": "the secret"}], is_error=False)
    assert result.content == [{"type": "text", "text": "THE [REDACTED]"}]


def test_additional_context_accumulates_in_handler_order(hooks):
    hooks.on("tool_call", lambda event: {"additional_context": ["one"]}).keep()
    hooks.on("tool_call", lambda event: {"additional_context": ["two"]}).keep()
    assert hooks.emit(tool_call()).additional_context == ["one", "two"]


def test_a_handler_may_emit_from_inside_a_handler(hooks):
    seen = []
    hooks.on("agent_start", lambda event: seen.append("nested")).keep()

    @hooks.on("tool_call")
    def emits(event):
        hooks.emit("agent_start")
        return {"decision": "allow"}

    assert hooks.emit(tool_call()).decision == "allow"
    assert seen == ["nested"]


def test_an_observe_only_event_returns_none(hooks):
    hooks.on("agent_start", lambda event: None).keep()
    assert hooks.emit("agent_start") is None
