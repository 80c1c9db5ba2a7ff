#!/usr/bin/env python3
"""Writes the type stubs of the hookbus package (hookbus/__init__.pyi).

    make_stubs.py PACKAGE_DIR

Run by the build once the module is built, with the module importable: the
stubs are made from the catalogue the module describes (hookbus.events(),
what `hookctl events --json` prints), so they cannot drift from the C++
types. With them an editor completes `event.tool_name`, and mypy checks
that a handler of `tool_call` returns a ToolCallResult, a dict or None
(docs/python.md).
"""

import importlib
import pathlib
import sys

NUMBERS = {"std::uint32_t", "std::uint64_t", "std::int64_t", "int", "Timestamp", "Duration"}
# What a missing key leaves at its default when an event is read
# (include/hookbus/json.hpp): these keywords may be left out.
MAY_BE_MISSING = {"bool", "boost::json::object", "boost::json::value", "RunStatus"}


def python_type(cpp, values):
    """The Python type of a field whose C++ type is `cpp`, as Python reads it."""
    if cpp.startswith("std::optional<"):
        return python_type(cpp[len("std::optional<"):-1], values) + " | None"
    if cpp.startswith("std::vector<"):
        return f"list[{python_type(cpp[len('std::vector<'):-1], values)}]"
    if values:
        return "Literal[" + ", ".join(repr(value) for value in values) + "]"
    if cpp == "std::string":
        return "str"
    if cpp == "bool":
        return "bool"
    if cpp in NUMBERS:
        return "int"
    if cpp == "double":
        return "float"
    if cpp == "boost::json::value":
        return "Any"
    return "dict[str, Any]"  # a JSON object, or a nested value (EventContext, a content part)


def may_be_missing(field, is_result):
    return (is_result or field["name"] == "context" or field["type"] in MAY_BE_MISSING
            or field["type"].startswith(("std::optional<", "std::vector<")))


def value_class(name, fields, is_result, event_name=None):
    lines = [f"class {name}:"]
    if event_name is not None:
        lines.append(f"    type: ClassVar[Literal[{event_name!r}]]")
    lines.append("    fields: ClassVar[tuple[str, ...]]")
    keywords = [f"{f['name']}: {python_type(f['type'], f.get('values'))}"
                + (" = ..." if may_be_missing(f, is_result) else "") for f in fields]
    lines.append(f"    def __init__(self{', *, ' + ', '.join(keywords) if keywords else ''}) -> None: ...")
    for field in fields:
        lines.append("    @property")
        lines.append(f"    def {field['name']}(self) -> {python_type(field['type'], field.get('values'))}: ...")
    lines.append("    def to_dict(self) -> dict[str, Any]: ...")
    lines.append(f"    def replace(self, **changes: Any) -> {name}: ...")
    return lines


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    package = pathlib.Path(sys.argv[1])
    # The built package, not the sources beside this script (sys.path[0]).
    sys.path.insert(0, str(package.parent))
    hookbus = importlib.import_module("hookbus")
    events = hookbus.events()
    out = [
        '"""Type stubs of hookbus, generated from its catalogue by lib/python/make_stubs.py."""',
        "",
        "from os import PathLike",
        "from typing import Any, Callable, ClassVar, Literal, TypeVar, overload",
        "",
        "__version__: str",
        "",
        "class Error(Exception): ...",
        "class JsonError(Error): ...",
        "class UnknownEventError(Error): ...",
        "class ProcessError(Error): ...",
        "",
        "def events() -> list[dict[str, Any]]: ...",
        "",
        "class Installation:",
        "    @property",
        "    def report(self) -> dict[str, Any]: ...",
        "    def uninstall(self) -> None: ...",
        "    def keep(self) -> None: ...",
        "    def wait_background(self) -> None: ...",
        "    def __enter__(self) -> Installation: ...",
        "    def __exit__(self, *args: object) -> None: ...",
        "",
        "def setup(hooks: Hooks, *, project_dir: str | PathLike[str] = ..., "
        "project_trust: Literal['trust_all', 'require', 'ignore'] = ..., trace: bool = ..., "
        "query_cache: bool = ...) -> Installation: ...",
        "",
    ]
    results_done = set()
    handler_types = []  # (event class, names, result class or None)
    for event in events:
        event_class = next(cls.__name__ for cls in vars(hookbus).values()
                           if isinstance(cls, type) and getattr(cls, "type", None) == event["name"])
        out += value_class(event_class, event["fields"], False, event["name"]) + [""]
        result = event["result"]
        if result is not None and result not in results_done:
            results_done.add(result)
            out += value_class(result, event["result_fields"], True) + [""]
        handler_types.append((event_class, [event["name"]] + event["aliases"], result))

    out += [
        "class HandlerFailure:",
        "    event: str",
        "    handler: str",
        "    message: str",
        "    kind: Literal['in_process', 'builtin', 'external', 'plugin']",
        "    source: str",
        "",
        "class Connection:",
        "    @property",
        "    def connected(self) -> bool: ...",
        "    @property",
        "    def label(self) -> str: ...",
        "    def disconnect(self) -> None: ...",
        "    def keep(self) -> None: ...",
        "    def __enter__(self) -> Connection: ...",
        "    def __exit__(self, *args: object) -> None: ...",
        "",
    ]
    options = ("*, priority: int = ..., tools: str = ..., "
               "failure: Literal['fail_open', 'fail_closed'] = ..., label: str = ...")
    for event_class, names, result in handler_types:
        returns = f"{result} | dict[str, Any] | None" if result else "None"
        out.append(f"_{event_class}Handler = TypeVar('_{event_class}Handler', "
                   f"bound=Callable[[{event_class}], {returns}])")
    out += [
        "_Subscriber = TypeVar('_Subscriber', bound=Callable[[Any], None])",
        "_ErrorListener = TypeVar('_ErrorListener', bound=Callable[[HandlerFailure], None])",
        "_Observer = TypeVar('_Observer', bound=Callable[[dict[str, Any]], None])",
        "",
        "class Hooks:",
        "    def __init__(self, *, nested_ordering: bool = ..., parallel_runs: int = ...) -> None: ...",
    ]
    for event_class, names, result in handler_types:
        returns = f"{result} | dict[str, Any] | None" if result else "None"
        which = "Literal[" + ", ".join(repr(name) for name in names) + f"] | type[{event_class}]"
        out += [
            "    @overload",
            f"    def on(self, event: {which}, handler: Callable[[{event_class}], {returns}], {options}) -> Connection: ...",
            "    @overload",
            f"    def on(self, event: {which}, handler: None = ..., {options}) "
            f"-> Callable[[_{event_class}Handler], _{event_class}Handler]: ...",
        ]
    for event_class, names, result in handler_types:
        which = "Literal[" + ", ".join(repr(name) for name in names) + "]"
        returns = result if result else "None"
        out += [
            "    @overload",
            f"    def emit(self, event: {event_class}) -> {returns}: ...",
            "    @overload",
            f"    def emit(self, event: {which}, **fields: Any) -> {returns}: ...",
        ]
    out += [
        "    @overload",
        "    def subscribe(self, handler: Callable[[Any], None], *, queued: bool | int | None = ..., "
        "overflow: Literal['block', 'drop_newest', 'drop_oldest'] = ..., label: str = ...) -> Connection: ...",
        "    @overload",
        "    def subscribe(self, handler: None = ..., *, queued: bool | int | None = ..., "
        "overflow: Literal['block', 'drop_newest', 'drop_oldest'] = ..., label: str = ...) "
        "-> Callable[[_Subscriber], _Subscriber]: ...",
        "    @overload",
        "    def on_emission(self, observer: Callable[[dict[str, Any]], None], *, queued: bool | int | None = ..., "
        "overflow: Literal['block', 'drop_newest', 'drop_oldest'] = ...) -> Connection: ...",
        "    @overload",
        "    def on_emission(self, observer: None = ..., *, queued: bool | int | None = ..., "
        "overflow: Literal['block', 'drop_newest', 'drop_oldest'] = ...) -> Callable[[_Observer], _Observer]: ...",
        "    @overload",
        "    def on_handler_error(self, listener: Callable[[HandlerFailure], None]) -> Connection: ...",
        "    @overload",
        "    def on_handler_error(self, listener: None = ...) -> Callable[[_ErrorListener], _ErrorListener]: ...",
        "",
    ]
    (package / "__init__.pyi").write_text("\n".join(out))
    (package / "py.typed").write_text("")


if __name__ == "__main__":
    main()
