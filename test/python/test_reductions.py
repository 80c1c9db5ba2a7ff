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


def text_message(text):
    return {"role": "user", "content": [{"type": "text", "text": text}]}


def test_replaced_messages_are_what_later_handlers_see_and_the_last_is_the_result(hooks):
    seen = []

    def summarise(event):
        return {"messages": [text_message("summary")]}

    def count(event):
        seen.append(len(event.messages))
        return {"messages": event.messages + [text_message("note")]}

    hooks.on("context", summarise).keep()
    hooks.on("context", count).keep()
    result = hooks.emit("context", messages=[text_message("one"), text_message("two"), text_message("three")])
    assert seen == [1]
    assert [message["content"][0]["text"] for message in result.messages] == ["summary", "note"]


def test_the_last_non_empty_system_prompt_wins_and_handlers_see_the_current_one(hooks):
    seen = []
    hooks.on("before_agent_start", lambda event: {"system_prompt": event.system_prompt + " Be brief."}).keep()
    hooks.on("before_agent_start", lambda event: seen.append(event.system_prompt)).keep()
    hooks.on("before_agent_start", lambda event: {"system_prompt": ""}).keep()  # empty: no change
    result = hooks.emit("before_agent_start", prompt="hi", system_prompt="You code.")
    assert seen == ["You code. Be brief."]
    assert result.system_prompt == "You code. Be brief."


def test_the_first_cancel_stops_the_chain(hooks):
    ran = []
    hooks.on("session_before_switch", lambda event: {"cancel": True, "reason": "unsaved work"}).keep()
    hooks.on("session_before_switch", lambda event: ran.append("second")).keep()
    result = hooks.emit("session_before_switch", reason="new_session")
    assert (result.cancel, result.reason) == (True, "unsaved work")
    assert ran == []


def test_input_transforms_chain_and_reject_stops(hooks):
    hooks.on("input", lambda event: {"action": "transform", "text": event.text.upper()}).keep()
    hooks.on("input", lambda event: {"action": "transform", "text": event.text + "!"}).keep()
    assert hooks.emit("input", text="hi", source="interactive").text == "HI!"
    hooks.on("input", lambda event: {"action": "reject", "reason": "no shouting"}, priority=-1).keep()
    rejected = hooks.emit("input", text="hi", source="interactive")
    assert (rejected.action, rejected.reason) == ("reject", "no shouting")


def test_collected_items_accumulate_in_handler_order(hooks):
    hooks.on("bootstrap_files", lambda event: {"contents": ["AGENTS.md"]}).keep()
    hooks.on("bootstrap_files", lambda event: {"contents": ["NOTES.md"]}).keep()
    assert hooks.emit("bootstrap_files", agent_id="main").contents == ["AGENTS.md", "NOTES.md"]


def test_the_first_handled_user_bash_wins(hooks):
    ran = []
    hooks.on("user_bash", lambda event: {"handled": True, "output": "done", "exit_code": 0}).keep()
    hooks.on("user_bash", lambda event: ran.append("second")).keep()
    result = hooks.emit("user_bash", command="ls", exclude_from_context=False, cwd="/")
    assert (result.handled, result.output, result.exit_code) == (True, "done", 0)
    assert ran == []
