"""Registering handlers: by name, alias or class, as a decorator or a call;
what a Connection does."""

import gc

import hookbus
from conftest import tool_call


def deny(reason):
    return hookbus.ToolCallResult(decision="deny", reason=reason)


def test_a_decorated_handler_decides_the_emit(hooks):
    @hooks.on("tool_call")
    def guard(event):
        return deny("no")

    assert hooks.emit(tool_call()).decision == "deny"


def test_a_decorator_returns_the_function_with_its_connection(hooks):
    @hooks.on("tool_call")
    def guard(event):
        return deny("no")

    assert callable(guard)
    guard.connection.disconnect()
    assert hooks.emit(tool_call()).decision == "none"


def test_an_alias_names_the_same_event(hooks):
    hooks.on("before_tool_call", lambda event: deny("alias")).keep()
    assert hooks.emit(tool_call()).reason == "alias"


def test_an_event_class_names_its_event(hooks):
    hooks.on(hookbus.ToolCallEvent, lambda event: deny("class")).keep()
    assert hooks.emit(tool_call()).reason == "class"


def test_an_unknown_event_name_is_an_error_listing_the_names(hooks):
    try:
        hooks.on("tool_cal", lambda event: None)
    except hookbus.UnknownEventError as error:
        assert "tool_call" in str(error)
    else:
        raise AssertionError("no error")


def test_a_handler_that_is_not_callable_is_a_type_error(hooks):
    try:
        hooks.on("tool_call", "deny")
    except TypeError as error:
        assert "callable" in str(error)
    else:
        raise AssertionError("no error")


def test_a_connection_disconnects_when_collected(hooks):
    connection = hooks.on("tool_call", lambda event: deny("collected"))
    assert hooks.emit(tool_call()).decision == "deny"
    del connection
    gc.collect()
    assert hooks.emit(tool_call()).decision == "none"


def test_a_kept_connection_stays_when_collected(hooks):
    hooks.on("tool_call", lambda event: deny("kept")).keep()
    gc.collect()
    assert hooks.emit(tool_call()).reason == "kept"


def test_a_kept_connection_can_still_be_disconnected(hooks):
    connection = hooks.on("tool_call", lambda event: deny("kept"))
    connection.keep()
    connection.disconnect()
    assert not connection.connected
    assert hooks.emit(tool_call()).decision == "none"


def test_a_with_block_disconnects_at_its_end(hooks):
    with hooks.on("tool_call", lambda event: deny("inside")):
        assert hooks.emit(tool_call()).reason == "inside"
    assert hooks.emit(tool_call()).decision == "none"


def test_a_connection_names_its_handler(hooks):
    connection = hooks.on("tool_call", lambda event: None, label="guard")
    assert connection.label == "guard"
    assert connection.connected


def test_lower_priority_runs_first(hooks):
    order = []
    hooks.on("turn_start", lambda event: order.append("late"), priority=10).keep()
    hooks.on("turn_start", lambda event: order.append("early"), priority=-10).keep()
    hooks.on("turn_start", lambda event: order.append("middle")).keep()
    hooks.emit("turn_start", turn_index=1, timestamp=0)
    assert order == ["early", "middle", "late"]


def test_a_tool_filter_leaves_other_tools_out(hooks):
    hooks.on("tool_call", lambda event: deny("bash only"), tools="bash").keep()
    assert hooks.emit(tool_call(tool_name="read")).decision == "none"
    assert hooks.emit(tool_call(tool_name="bash")).decision == "deny"


def test_a_tool_filter_on_an_event_without_tools_is_a_value_error(hooks):
    try:
        hooks.on("turn_start", lambda event: None, tools="bash")
    except ValueError as error:
        assert "not a tool event" in str(error)
    else:
        raise AssertionError("no error")


def test_an_unknown_failure_policy_lists_the_policies(hooks):
    try:
        hooks.on("tool_call", lambda event: None, failure="closed")
    except ValueError as error:
        assert "fail_open, fail_closed" in str(error)
    else:
        raise AssertionError("no error")


def test_a_subscriber_sees_every_event_after_its_handlers(hooks):
    seen = []
    hooks.on("tool_call", lambda event: seen.append("handler")).keep()

    @hooks.subscribe()
    def everything(event):
        seen.append(event.type)

    hooks.emit(tool_call())
    hooks.emit("agent_start")
    assert seen == ["handler", "tool_call", "agent_start"]
