#!/usr/bin/env python3
"""The include graph of lib/ and include/ (CTest include_graph).

    include_graph_test.py SOURCE_DIR

Reads every `#include "..."` and `#include <hookbus/...>` of the files under
lib/ and include/hookbus/ (a quoted include is looked for beside the file,
then in lib/ and include/, as the compiler does; other includes are outside the
graph) and fails, naming what it found, when

  - files include each other in a circle (printed file by file);
  - a subsystem includes, directly or through other files, one that RULES
    forbids it (the chain of includes is printed);
  - subsystems include each other in a circle, once SUBSYSTEM_CIRCLES is
    enforced (until then the circles are printed as notes);
  - a subsystem includes one of a higher layer (LAYERS), or is in no layer.

A subsystem is a folder of lib/ (lib/bus/ with its subfolders) together with
the public headers implemented there: include/hookbus/X.hpp belongs to the
folder that holds X.cpp, unless PUBLIC_HEADERS says otherwise. The other
public headers (the catalogue's types, errors, the umbrella header) belong
to no subsystem, and every subsystem may include them.

A check that is not enforced yet runs all the same: while it finds
something, that is printed as a note; once it finds nothing, the test fails
until it is switched on here, so that what holds stays held.
"""

import collections
import pathlib
import re
import sys

# The layers of docs/architecture.md, bottom to top: a subsystem includes
# nothing of a later layer (those of one layer may include each other, never
# in a circle).
LAYERS = [
    ["support"], ["net"], ["catalogue"], ["bus"], ["config"], ["trust"], ["plugins"], ["builtins", "trace", "voice"],
    ["process"], ["discovery"], ["formats"], ["external"], ["setup"],
    # Bindings: another language's view of everything below (lib/python).
    ["python"],
]

# (subsystem, what it must not include, enforced, why).
RULES = [
    ("config", "builtins", True, "config is data: built-ins install themselves from the registry"),
    ("config", "trace", True, "config is data: the tracer is a built-in that takes the settings config read"),
    ("config", "external", True, "config is data: path-safety helpers live where every reader can use them"),
    ("config", "bus", True, "config is data: it needs no bus for an enum"),
    ("bus", "trace", True, "the bus records emits itself (lib/bus/recording/); tracing builds on the bus"),
    # Issue 27, section 2: the hook formats are a wing above config and trust, below setup.
    ("config", "formats", True, "config reads an entry's shape; its format checks its names (config/format_checks.hpp)"),
    ("trust", "formats", True, "trust covers files; what a format's commands reach is the format's to say"),
    ("formats", "setup", True, "setup() orchestrates the formats (FormatImports); a format never reaches back up"),
    # Issue 27, section 3: running a program is below every kind of hook that runs one.
    ("process", "external", True, "the process runner runs any program; what a hook's run means is the hooks' to say"),
    ("process", "formats", True, "the process runner runs any program; what a hook's run means is the hooks' to say"),
    ("plugins", "builtins", True, "a plugin offers built-ins to the registry (builtin_registry.hpp); built-ins load plugins"),
    # Issue 27, section 3: the formats sit below external hooks, whose installer
    # installs each format's commands and whose runner speaks hookbus's own
    # protocol (formats/kodelet/); both stand on discovery, the process
    # runner's pieces (process/run_end.hpp, process/background.hpp), ExternalHookError
    # (external_hook_error.hpp) and the installer's types (external_install.hpp).
    ("formats", "external", True, "a format feeds and reads its hooks; the external-hook installer installs them"),
    ("discovery", "external", True, "discovery finds hook files; running and installing them is above it"),
    ("discovery", "formats", True, "discovery finds hook files; a format's commands say which they run (run_elsewhere)"),
]

SUBSYSTEM_CIRCLES_ENFORCED = True

# Public headers whose implementation is not (only) a file of their own name.
# None: shared by several subsystems, so of none.
PUBLIC_HEADERS = {
    "claude_code.hpp": "formats",  # lib/formats/claude_code/
    # install_builtins (lib/builtins/builtins.cpp), its types only named:
    # config.hpp includes it for code that called it there before it moved.
    "install_builtins.hpp": None,
    # BuiltinRegistry (lib/builtins/builtins.cpp): what built-ins fill and
    # plugins offer to, so that plugins include none of the built-ins.
    "builtin_registry.hpp": None,
    # EmissionRecord, which the bus makes (lib/bus/recording/), beside the
    # trace file's reader and writer (lib/trace/trace_file.cpp).
    "trace.hpp": None,
    # ExternalInstallOptions and InstallReport, which install_external_hooks
    # (lib/external/installer.cpp) takes and gives, beside the formats'
    # commands they carry: what setup() asks each format to fill (FormatImports).
    "external_install.hpp": None,
}

INCLUDE = re.compile(r'^\s*#\s*include\s*(?:"([^"]+)"|<(hookbus/[^>]+)>)')
SOURCES = ("*.hpp", "*.cpp", "*.h", "*.cpp.in")


def read_graph(root):
    """Every file, and for each the files it includes, with the line of the include."""
    files = sorted({p.relative_to(root).as_posix()
                    for top in ("lib", "include/hookbus") for pattern in SOURCES
                    for p in (root / top).rglob(pattern)})
    known = set(files)
    edges = {}
    for name in files:
        targets = {}
        for number, line in enumerate((root / name).read_text(errors="replace").splitlines(), 1):
            match = INCLUDE.match(line)
            if not match:
                continue
            quoted, public = match.groups()
            if public:
                candidates = ["include/" + public]
            else:
                beside = (pathlib.PurePosixPath(name).parent / quoted).as_posix()
                candidates = [beside, "lib/" + quoted, "include/" + quoted]
            target = next((c for c in candidates if c in known), None)
            if target is not None and target != name:
                targets.setdefault(target, f"{name} (line {number})")
        edges[name] = targets
    return files, edges


def subsystems(files):
    """Each subsystem's files."""
    implemented_in = {}
    for name in files:
        parts = name.split("/")
        if parts[0] == "lib" and len(parts) > 2 and name.endswith(".cpp"):
            implemented_in.setdefault(parts[-1][: -len(".cpp")], parts[1])
    members = collections.defaultdict(set)
    for name in files:
        parts = name.split("/")
        if parts[0] == "lib":
            subsystem = parts[1] if len(parts) > 2 else None
        elif parts[-1] in PUBLIC_HEADERS:
            subsystem = PUBLIC_HEADERS[parts[-1]]
        else:
            subsystem = implemented_in.get(parts[-1][: -len(".hpp")])
        if subsystem is not None:
            members[subsystem].add(name)
    return members


def chain_to(start, goals, edges, within=None):
    """The shortest chain of includes from `start` to a node of `goals` (at least one step), or None."""
    previous = {start: None}
    queue = collections.deque([start])
    while queue:
        node = queue.popleft()
        for target in sorted(edges[node]):
            if within is not None and target not in within:
                continue
            if target in goals:
                chain = [target, node]
                while previous[chain[-1]] is not None:
                    chain.append(previous[chain[-1]])
                return chain[::-1]
            if target not in previous:
                previous[target] = node
                queue.append(target)
    return None


def circles(nodes, edges):
    """Each set of nodes that reach each other (Tarjan's strongly connected components), with a circle through it."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def enter(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        return (node, iter(sorted(edges[node])))

    for root in nodes:
        if root in index:
            continue
        work = [enter(root)]
        while work:
            node, targets = work[-1]
            target = next(targets, None)
            if target is not None:
                if target not in index:
                    work.append(enter(target))
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append((sorted(component), chain_to(node, {node}, edges, within=component)))
    return found


def describe(chain, edges):
    """a -> b -> c, each step with where its include is."""
    return "\n  ".join([chain[0]] + [f"-> {b}   [{edges[a][b]}]" for a, b in zip(chain, chain[1:])])


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    files, edges = read_graph(pathlib.Path(sys.argv[1]).resolve())
    members = subsystems(files)
    failures, notes = [], []

    for component, circle in circles(files, edges):
        failures.append(f"{len(component)} files include each other, e.g. in this circle:\n  " + describe(circle, edges))

    for subsystem, forbidden, enforced, why in RULES:
        unknown = [name for name in (subsystem, forbidden) if name not in members]
        if unknown:
            failures.append(f"RULES names {unknown}, which is no subsystem (a folder of lib/)")
            continue
        chains = [chain for start in sorted(members[subsystem])
                  if (chain := chain_to(start, members[forbidden], edges)) is not None]
        rule = f"{subsystem} includes nothing of {forbidden} ({why})"
        if enforced and chains:
            failures.append(f"broken rule: {rule}; it does:\n  " +
                            "\n  ".join(describe(chain, edges) for chain in chains))
        elif not enforced and not chains:
            failures.append(f"a rule not yet enforced holds now: {rule}; switch it on in RULES")
        elif not enforced:
            shortest = min(chains, key=len)
            notes.append(f"not yet enforced: {rule}; {forbidden} is reached from {len(chains)} of its files, "
                         f"e.g.\n  " + describe(shortest, edges))

    of = {name: subsystem for subsystem, names in members.items() for name in names}
    between = {subsystem: {} for subsystem in members}
    for name, targets in edges.items():
        for target, where in targets.items():
            a, b = of.get(name), of.get(target)
            if a is not None and b is not None and a != b:
                between[a].setdefault(b, f"{where} includes {target}")
    layer_of = {subsystem: number for number, layer in enumerate(LAYERS) for subsystem in layer}
    for subsystem in sorted(set(members) - set(layer_of)):
        failures.append(f"{subsystem} is in no layer: add it to LAYERS and to docs/architecture.md's table")
    for a in sorted(between):
        for b, where in sorted(between[a].items()):
            if a in layer_of and b in layer_of and layer_of[b] > layer_of[a]:
                failures.append(f"{a} includes {b}, a higher layer (LAYERS, docs/architecture.md): {where}")
    subsystem_circles = circles(sorted(between), between)
    for component, circle in subsystem_circles:
        text = (f"these subsystems include each other: {', '.join(component)}; e.g. in this circle:\n  " +
                describe(circle, between))
        (failures if SUBSYSTEM_CIRCLES_ENFORCED else notes).append(text)
    if not SUBSYSTEM_CIRCLES_ENFORCED and not subsystem_circles:
        failures.append("no subsystems include each other in a circle now: set SUBSYSTEM_CIRCLES_ENFORCED")

    print(f"{len(files)} files, {sum(map(len, edges.values()))} includes between them, "
          f"{len(members)} subsystems: {', '.join(sorted(members))}")
    for note in notes:
        print("note: " + note)
    for failure in failures:
        print("FAIL: " + failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
