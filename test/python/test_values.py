"""Events and results as Python objects: made from the catalogue, read
field by field, strict about what they are given."""

import hookbus
import pytest
from conftest import tool_call


def test_every_event_of_the_catalogue_has_a_class():
    for event in hookbus.events():
        cls = next(c for c in vars(hookbus).values()
                   if isinstance(c, type) and getattr(c, "type", None) == event["name"])
        assert cls.fields == tuple(field["name"] for field in event["fields"])


def test_an_event_reads_its_fields_as_python_values():
    event = tool_call("rm -rf /")
    assert event.tool_name == "bash"
    assert event.input["command"] == "rm -rf /"
    assert event.type == "tool_call"


def test_an_enum_field_reads_as_its_wire_name():
    assert hookbus.ToolCallResult(decision="deny").decision == "deny"


def test_an_unknown_keyword_is_an_error_naming_it():
    with pytest.raises(hookbus.JsonError, match="tool_nme"):
        hookbus.ToolCallEvent(tool_call_id="1", tool_nme="bash")


def test_a_missing_required_field_is_an_error_naming_it():
    with pytest.raises(hookbus.JsonError, match="tool_call: missing required field .tool_name."):
        hookbus.ToolCallEvent(tool_call_id="1")


def test_a_wrong_enum_value_lists_the_values():
    with pytest.raises(hookbus.JsonError, match="none, allow, ask, defer, deny"):
        hookbus.ToolCallResult(decision="block")


def test_a_value_python_cannot_give_as_json_is_a_type_error_naming_where():
    with pytest.raises(TypeError, match=r"ToolCallEvent.input.when"):
        hookbus.ToolCallEvent(tool_call_id="1", tool_name="bash", input={"when": object()})


def test_replace_makes_a_changed_copy():
    event = tool_call("ls")
    changed = event.replace(input={"command": "pwd"})
    assert changed.input == {"command": "pwd"}
    assert event.input == {"command": "ls"}


def test_equal_values_compare_equal():
    assert tool_call("ls") == tool_call("ls")
    assert tool_call("ls") != tool_call("pwd")


def test_repr_shows_the_fields():
    assert repr(hookbus.ToolCallResult(decision="deny", reason="no")).startswith(
        'ToolCallResult({"decision":"deny","reason":"no"')


def test_an_event_a_handler_keeps_stays_readable_after_the_emit(hooks):
    kept = []
    hooks.on("tool_call", kept.append).keep()
    hooks.emit(tool_call("ls"))
    hooks.emit(tool_call("pwd"))
    assert [event.input["command"] for event in kept] == ["ls", "pwd"]


def test_emit_by_name_takes_the_events_fields(hooks):
    hooks.on("tool_call", lambda event: {"decision": "deny", "reason": event.tool_name}).keep()
    assert hooks.emit("tool_call", tool_call_id="1", tool_name="bash").reason == "bash"


def test_emit_of_an_unknown_event_lists_the_names(hooks):
    with pytest.raises(hookbus.UnknownEventError, match="tool_call"):
        hooks.emit("tool_cal")


def test_emit_of_a_class_is_a_type_error(hooks):
    with pytest.raises(TypeError, match="not its class"):
        hooks.emit(hookbus.ToolCallEvent)


def test_the_module_says_its_version():
    assert hookbus.__version__.count(".") == 2
