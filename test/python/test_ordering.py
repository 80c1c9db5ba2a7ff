"""Ordering and reentrancy (docs/semantics.md, sections 4 and 6), from Python."""

import hookbus


def tool_result():
    return hookbus.ToolResultEvent(tool_call_id="1", tool_name="bash", input={}, content=[], is_error=False)


def test_equal_priorities_keep_registration_order(hooks):
    order = []
    for name in ("first", "second", "third"):
        hooks.on("agent_start", lambda event, name=name: order.append(name)).keep()
    hooks.emit("agent_start")
    assert order == ["first", "second", "third"]


def test_nested_ordering_runs_closing_events_in_reverse_within_a_priority_group():
    hooks = hookbus.Hooks(nested_ordering=True)
    order = []
    for name in ("outer", "inner"):
        hooks.on("tool_result", lambda event, name=name: order.append(name)).keep()
    hooks.on("tool_result", lambda event: order.append("first group"), priority=-1).keep()
    hooks.emit(tool_result())
    assert order == ["first group", "inner", "outer"]


def test_a_handler_registered_during_an_emit_first_runs_on_the_next_emit(hooks):
    ran = []
    late = []

    def registers(event):
        ran.append("registers")
        if not late:
            late.append(hooks.on("agent_start", lambda event: ran.append("late")))

    hooks.on("agent_start", registers).keep()
    hooks.emit("agent_start")
    assert ran == ["registers"]
    hooks.emit("agent_start")
    assert ran == ["registers", "registers", "late"]


def test_a_handler_disconnected_during_an_emit_and_not_yet_called_is_not_called(hooks):
    ran = []
    later = []

    def disconnects(event):
        ran.append("disconnects")
        later[0].disconnect()

    hooks.on("agent_start", disconnects).keep()
    later.append(hooks.on("agent_start", lambda event: ran.append("later")))
    hooks.emit("agent_start")
    assert ran == ["disconnects"]


def test_a_handler_may_disconnect_itself(hooks):
    ran = []
    own = []

    def once(event):
        ran.append("once")
        own[0].disconnect()

    own.append(hooks.on("agent_start", once))
    hooks.emit("agent_start")
    hooks.emit("agent_start")
    assert ran == ["once"]
