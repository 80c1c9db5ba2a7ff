"""A handler's failure, as the bus reports it and as its failure policy says."""

import hookbus
from conftest import tool_call


def test_an_exception_is_a_handler_failure_with_its_type_and_message(hooks, failures):
    def broken(event):
        raise ValueError("no such file")

    hooks.on("tool_call", broken, label="broken").keep()
    assert hooks.emit(tool_call()).decision == "none"
    assert [(f.event, f.handler, f.message, f.kind) for f in failures] == [
        ("tool_call", "broken", "ValueError: no such file", "in_process")]


def test_a_fail_closed_handler_that_raises_refuses_naming_itself(hooks, failures):
    def broken(event):
        raise RuntimeError("policy server down")

    hooks.on("tool_call", broken, failure="fail_closed", label="policy").keep()
    result = hooks.emit(tool_call())
    assert result.decision == "deny"
    assert "policy" in result.reason
    assert result.decided_by["handler"] == "policy"


def test_the_chain_goes_on_after_a_fail_open_handler_raises(hooks, failures):
    hooks.on("tool_call", lambda event: 1 / 0).keep()
    hooks.on("tool_call", lambda event: {"decision": "deny", "reason": "second"}).keep()
    assert hooks.emit(tool_call()).reason == "second"
    assert failures[0].message.startswith("ZeroDivisionError")


def test_returning_something_that_is_no_result_is_a_failure_naming_what_it_returns(hooks, failures):
    hooks.on("tool_call", lambda event: "deny").keep()
    hooks.emit(tool_call())
    assert "returned a str; it returns a ToolCallResult, a dict of its fields, or None" in failures[0].message


def test_returning_another_events_result_is_a_failure(hooks, failures):
    hooks.on("tool_call", lambda event: hookbus.InputResult()).keep()
    hooks.emit(tool_call())
    assert "returned a InputResult" in failures[0].message


def test_a_misspelt_field_in_a_returned_dict_is_a_failure_naming_it(hooks, failures):
    hooks.on("tool_call", lambda event: {"decison": "deny"}).keep()
    assert hooks.emit(tool_call()).decision == "none"
    assert "decison" in failures[0].message


def test_a_value_for_an_observe_only_event_is_a_failure(hooks, failures):
    hooks.on("agent_start", lambda event: {"anything": 1}).keep()
    hooks.emit("agent_start")
    assert "observe-only" in failures[0].message


def test_a_failing_error_listener_does_not_loop(hooks):
    def listener(failure):
        raise RuntimeError("listener broke")

    hooks.on_handler_error(listener).keep()
    hooks.on("tool_call", lambda event: 1 / 0).keep()
    assert hooks.emit(tool_call()).decision == "none"
