#!/usr/bin/env python3
"""The examples in README.md and docs/*.md, compiled and run (CONTRIBUTING.md,
"Examples in the docs", describes the conventions for writers).

  doc_examples.py cpp OUT_DIR SOURCE_DIR
      Writes one C++ file per document that has ```cpp blocks into OUT_DIR
      (only when its text changed) and prints their paths, one per line. The
      build compiles them into the doc_examples program; #line directives make
      every compiler message name the document and its line.

  doc_examples.py sh HOOKCTL SOURCE_DIR [DOC_EXAMPLES]
      Runs the commands of every ```sh block in a scratch project per
      document and compares their output with the output the document shows.
      Exits 1 after listing every failure as FILE:LINE: what went wrong.
      DOC_EXAMPLES, the built doc_examples program, is $HOOKBUS_DOC_EXAMPLES
      for the commands: `"$HOOKBUS_DOC_EXAMPLES" docs/NAME.md` runs that
      document's whole programs there (an engine against the doc's project).

C++ blocks. Each is compiled with <hookbus/hookbus.hpp> included first. Its
own #include lines go at file scope; the rest becomes the body of a function,
unless the block defines `int main(`, in which case it stays at namespace
scope and doc_examples runs that main (it must return 0). An HTML comment on
the line before the fence changes this:
  <!-- cpp: given hookbus::Hooks& hooks, const hookbus::Config& config -->
      the function takes these parameters: names the snippet uses unexplained;
  <!-- cpp: file -->
      the block is declarations at namespace scope (types, functions).

Shell blocks. In a ```sh block, a line starting with "$ " is a command; the
lines after it, up to the next "$ " line or the end of the block, are what it
prints (stdout, then stderr). A line without "$ " that runs hookctl
("hookctl list", "NO_COLOR=1 hookctl list", "cd x && hookctl list") is a
command whose output the document does not show: it must exit 0. Other lines
(./tools/test, cmake ...) are not run. A ```sh block written to a file
(<!-- file: -->, below) is a script: none of its lines is run as a command. In expected output, a line
"..." stands for any number of lines and "..." inside a line for any text.
Commands run with /bin/sh in a scratch project directory ~/project, in a
scratch HOME (so the user hook directory is ~/.config/hookbus/hooks), with
hookctl first in PATH, NO_COLOR=1, HOOKBUS_SOURCE_DIR set (and HOOKBUS_PREFIX,
an installed hookbus, when the test passes one) and the managed
layer in ~/managed; output shows that HOME as "~". A command that exits non-zero must be followed by
"$ echo $?" showing its status ($? is the previous command's status).
  <!-- file: PATH mode=755 -->
      before a fenced block (of any language): write the block to PATH in the
      scratch project (relative to ~/project, or ~/...) when the document
      gets there (a ```cpp block written so is left to the document's own
      commands to compile);
  <!-- sh: COMMAND -->
      run a setup command there, unseen by readers.

What is never run must not look as if it were: each of these is a failure,
named by file and line, so that no example is skipped in silence:
  - a fence that is indented, or made of ~~~ (only ``` at the start of a
    line opens and closes a block here);
  - a fence language not in LANGUAGES (which says what becomes of each);
  - a hookctl command in a block other than ```sh (a ```text synopsis with a
    placeholder, as "hookctl run-hook PATH NAME", is fine), unless the block
    is written to a file;
  - a script (its first line "#!") that is not written to a file;
  - a ```cpp block written to a file that no command of its document
    compiles (the commands run with compilers c++, g++ and clang++ that note
    each file they are given).
"""

import difflib
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

FENCE = re.compile(r"^```(\S*)\s*$")
# A fence this harness would not see: indented, or of tildes.
HIDDEN_FENCE = re.compile(r"^(?:[ \t]+```|[ \t]*~~~)")
DIRECTIVE = re.compile(r"^<!--\s*(cpp|file|sh):\s*(.*?)\s*-->\s*$")
INCLUDE = re.compile(r"^\s*#\s*include\b")
# hookctl where a shell runs it: at the start (after "$ " and VAR=value
# words), or after ; & | ( or $(.
HOOKCTL_COMMAND = re.compile(r"(?:^|[;&|(]|\$\()\s*(?:\$\s+)?(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)*hookctl(?:\s|$)")
# A synopsis's placeholder after hookctl: an upper-case word (PATH, NAME) not
# following $, or an optional part in brackets.
PLACEHOLDER = re.compile(r"(?<![$\w])[A-Z][A-Z0-9_]*[A-Z0-9]\b|\[")
# What becomes of a block of each fence language ("" is a fence without one).
LANGUAGES = {
    "cpp": "compiled into doc_examples (or, written to a file, by the document's own commands)",
    "sh": "its commands run, their output compared",
    "cmake": "the README's consumer blocks are built by test/consumer_test.cmake; others only as files",
    "json": "read by hookbus when written to a file (config); otherwise shown",
    "python": "run when written to a file (a hook) and used by the document's commands",
    "yaml": "shown (another program's config)",
    "toml": "shown (another program's config)",
    "text": "shown: output, synopses with placeholders, logs",
    "": "shown: output",
}
# The compilers a document's commands get (through PATH), noting each file they are given.
COMPILERS = ("c++", "g++", "clang++")


class Block:
    def __init__(self, language, first_line, lines, directive):
        self.language = language
        self.first_line = first_line  # 1-based line of the first line of code
        self.lines = lines
        self.directive = directive  # (kind, argument) from the comment before the fence, or None


class DocError(Exception):
    pass


def documents(source_dir):
    root = Path(source_dir)
    return [root / "README.md"] + sorted((root / "docs").glob("*.md"))


def read_blocks(path, relative):
    """Every fenced block of a Markdown file, with the directive before it, and
    every setup directive (as a block of language "setup"), in document order."""
    blocks = []
    text = path.read_text(encoding="utf-8").split("\n")
    i = 0
    while i < len(text):
        directive = DIRECTIVE.match(text[i])
        if directive and directive.group(1) == "sh":
            blocks.append(Block("setup", i + 1, [directive.group(2)], None))
        fence = FENCE.match(text[i])
        if not fence:
            i += 1
            continue
        before = DIRECTIVE.match(text[i - 1]) if i > 0 else None
        start = i + 1
        end = start
        while end < len(text) and not text[end].startswith("```"):
            end += 1
        if end == len(text):
            raise DocError(f"{relative}:{i + 1}: the fenced block is not closed")
        blocks.append(Block(fence.group(1), start + 1, text[start:end],
                            (before.group(1), before.group(2)) if before else None))
        i = end + 1
    return blocks


# ---------------------------------------------------------------- C++ blocks

def cpp_translation_unit(relative, blocks):
    includes = ["#include <hookbus/hookbus.hpp>", '#include "doc_examples.hpp"']
    bodies = []
    for block in blocks:
        name = f"doc_line_{block.first_line}"
        kind, argument = block.directive if block.directive and block.directive[0] == "cpp" else (None, "")
        if kind == "cpp" and not (argument == "file" or argument.startswith("given ")):
            raise DocError(f"{relative}:{block.first_line - 1}: unknown cpp directive '{argument}'; "
                           "use 'given DECLARATIONS' or 'file'")
        code = []
        for offset, line in enumerate(block.lines):
            line_number = block.first_line + offset
            if INCLUDE.match(line):
                includes.append(f'#line {line_number} "{relative}"\n{line}')
            else:
                code.append((line_number, line))
        text = ""
        for index, (number, line) in enumerate(code):
            if index == 0 or code[index - 1][0] != number - 1:  # only where the numbering jumps
                text += f'#line {number} "{relative}"\n'
            text += line + "\n"
        program = any("int main(" in line for _, line in code)
        if program or argument == "file":
            bodies.append(f"namespace {name} {{\n{text}}}  // namespace {name}\n")
            if program:
                bodies.append(f'static const bool {name}_registered = '
                              f'doc_examples::add_program("{relative}:{block.first_line}", &{name}::main);\n')
        else:
            given = argument[len("given "):] if argument.startswith("given ") else ""
            parameters = ", ".join(f"[[maybe_unused]] {p.strip()}" for p in given.split(",") if p.strip())
            bodies.append(f"namespace {name} {{\n[[maybe_unused]] void example({parameters}) {{\n{text}}}\n"
                          f"}}  // namespace {name}\n")
    return (f"// Generated by test/doc_examples.py from {relative}: do not edit.\n"
            + "\n".join(includes) + "\n\n" + "\n".join(bodies))


def generate_cpp(out_dir, source_dir):
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    for path in documents(source_dir):
        relative = path.relative_to(source_dir).as_posix()
        # A block written to a file is compiled by the document's own commands.
        blocks = [b for b in read_blocks(path, relative)
                  if b.language == "cpp" and not (b.directive and b.directive[0] == "file")]
        if not blocks:
            continue
        target = out / (relative.replace("/", "_").replace(".md", "") + ".cpp")
        text = cpp_translation_unit(relative, blocks)
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")
        print(target)


# ---------------------------------------------------------------- shell blocks

class Command:
    def __init__(self, line_number, text, expected):
        self.line_number = line_number
        self.text = text
        self.expected = expected  # list of lines, or None: not shown (must exit 0)
        self.shown = ("$ " if expected is not None else "") + text


def runs_hookctl(line):
    """Whether a line of shell runs hookctl (comments aside)."""
    return not line.lstrip().startswith("#") and bool(HOOKCTL_COMMAND.search(line))


def is_written(block):
    return bool(block.directive) and block.directive[0] == "file"


def commands_of(block):
    """The commands of a ```sh block, with the output each shows; none for a
    block written to a file, which is a script."""
    if is_written(block):
        return []
    commands = []
    lines = block.lines
    i = 0
    while i < len(lines):
        line = lines[i]
        number = block.first_line + i
        i += 1
        if line.startswith("$ "):
            text = line[2:]
            while text.endswith("\\") and i < len(lines):
                text = text[:-1] + "\n" + lines[i]
                i += 1
            expected = []
            while i < len(lines) and not lines[i].startswith("$ "):
                expected.append(lines[i])
                i += 1
            commands.append(Command(number, text, expected))
        elif runs_hookctl(line):
            text = line
            while text.endswith("\\") and i < len(lines):
                text = text[:-1] + "\n" + lines[i]
                i += 1
            commands.append(Command(number, text, None))
    return commands


def unseen_examples(relative, text, blocks):
    """What in a document looks like an example but would not be compiled or
    run: FILE:LINE: why, for each."""
    failures = []
    for number, line in enumerate(text.split("\n"), start=1):
        if HIDDEN_FENCE.match(line):
            failures.append(f"{relative}:{number}: a fence this harness does not read (indented, or ~~~): "
                            "start fenced blocks with ``` at the beginning of the line")
    for block in blocks:
        if block.language == "setup":
            continue
        fence = block.first_line - 1
        if block.language not in LANGUAGES:
            known = ", ".join(f"'{name}'" if name else "none" for name in LANGUAGES)
            failures.append(f"{relative}:{fence}: fence language '{block.language}' is not one the doc_examples harness "
                            f"knows ({known}): its code would be neither compiled nor run; use one of those, or add "
                            "the language to LANGUAGES in test/doc_examples.py with what becomes of it")
            continue
        if is_written(block):
            continue  # a file the document's commands use, whatever it holds
        if block.lines and block.lines[0].startswith("#!"):
            failures.append(f"{relative}:{block.first_line}: a script that nothing runs: write it to a file with "
                            "<!-- file: PATH mode=755 --> on the line before the fence, and run it in a ```sh block")
        if block.language == "sh":
            continue
        for offset, line in enumerate(block.lines):
            command = HOOKCTL_COMMAND.search(line)
            if not command:
                continue
            if block.language in ("text", "") and PLACEHOLDER.search(line[command.end():]):
                continue  # a synopsis: "hookctl run-hook PATH NAME"
            failures.append(f"{relative}:{block.first_line + offset}: a hookctl command in a ```{block.language} block "
                            "is never run: put it in a ```sh block (with '$ ' to show its output), or write a "
                            "synopsis with placeholders (hookctl run-hook PATH NAME) in a ```text block")
    return failures


def line_pattern(expected_line):
    return re.compile("^" + ".*".join(re.escape(part) for part in expected_line.split("...")) + "$")


def matches(expected, actual):
    """Expected lines against actual ones: a line "..." matches any run of lines."""
    if not expected:
        return not actual
    head = expected[0]
    if head.strip() == "...":
        return any(matches(expected[1:], actual[k:]) for k in range(len(actual) + 1))
    return bool(actual) and bool(line_pattern(head).match(actual[0])) and matches(expected[1:], actual[1:])


def trimmed(lines):
    lines = [line.rstrip() for line in lines]
    while lines and not lines[-1]:
        lines.pop()
    return lines


class Scratch:
    """A scratch HOME with ~/project in it, where one document's commands run."""

    def __init__(self, hookctl, source_dir, doc_examples):
        self.home = Path(tempfile.mkdtemp(prefix="hookbus-doc-"))
        self.project = self.home / "project"
        self.project.mkdir(mode=0o755)
        system_path = "/usr/local/bin:/usr/bin:/bin"
        # The compilers, through scripts that note what they compile (compiled()).
        self.compilers = Path(tempfile.mkdtemp(prefix="hookbus-doc-compilers-"))
        self.compiler_log = self.compilers / "log"
        for name in COMPILERS:
            real = shutil.which(name, path=system_path)
            if real:
                script = self.compilers / name
                script.write_text("#!/bin/sh\n"
                                  f"{{ printf 'cwd %s\\n' \"$PWD\"; for a in \"$@\"; do printf 'arg %s\\n' \"$a\"; done; }}"
                                  f" >> {shlex.quote(str(self.compiler_log))}\n"
                                  f"exec {shlex.quote(real)} \"$@\"\n", encoding="utf-8")
                script.chmod(0o755)
        self.environment = {
            "HOME": str(self.home),
            "PATH": f"{Path(hookctl).resolve().parent}:{self.compilers}:{system_path}",
            "NO_COLOR": "1",
            "TERM": "dumb",
            "LANG": "C.UTF-8",
            "HOOKBUS_SOURCE_DIR": str(Path(source_dir).resolve()),
            "HOOKBUS_MANAGED_DIR": str(self.home / "managed"),  # not this machine's /etc/hookbus
            # an installed hookbus, which docs/plugins.md builds a plugin against (test/CMakeLists.txt)
            "HOOKBUS_PREFIX": os.environ.get("HOOKBUS_PREFIX", ""),
        }
        if doc_examples:
            self.environment["HOOKBUS_DOC_EXAMPLES"] = str(Path(doc_examples).resolve())
        self.status = 0

    def close(self):
        shutil.rmtree(self.home, ignore_errors=True)
        shutil.rmtree(self.compilers, ignore_errors=True)

    def compiled(self):
        """Every file a compiler was given so far, as real paths."""
        files = set()
        if not self.compiler_log.exists():
            return files
        cwd = self.project
        for line in self.compiler_log.read_text(encoding="utf-8", errors="replace").split("\n"):
            if line.startswith("cwd "):
                cwd = Path(line[4:])
            elif line.startswith("arg ") and not line.startswith("arg -"):
                files.add(os.path.realpath(cwd / line[4:]))
        return files

    def write(self, argument, block):
        words = argument.split()
        path = Path(words[0])
        mode = 0o644
        for word in words[1:]:
            if not word.startswith("mode="):
                raise DocError(f"unknown file option '{word}'; use mode=NNN")
            mode = int(word[len("mode="):], 8)
        target = self.home / str(path)[2:] if str(path).startswith("~/") else self.project / path
        target.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
        target.write_text("\n".join(block.lines) + "\n", encoding="utf-8")
        target.chmod(mode)
        return target

    def run(self, text):
        # A bound for a command that hangs, not a time it must keep: a doc's
        # plugin build (docs/plugins.md) takes over a minute on a loaded machine.
        completed = subprocess.run(["/bin/sh", "-c", f"(exit {self.status}); {text}"], cwd=self.project,
                                   env=self.environment, stdin=subprocess.DEVNULL, capture_output=True,
                                   timeout=300)
        self.status = completed.returncode
        output = (completed.stdout + completed.stderr).decode("utf-8", errors="replace")
        return completed.returncode, output.replace(str(self.home), "~")


def check_document(path, relative, hookctl, source_dir, doc_examples):
    blocks = read_blocks(path, relative)
    failures = unseen_examples(relative, path.read_text(encoding="utf-8"), blocks)
    scratch = Scratch(hookctl, source_dir, doc_examples)
    try:
        commands = []
        cpp_files = []  # (block, where it was written): each must be compiled by a command
        for block in blocks:
            if is_written(block):
                try:
                    target = scratch.write(block.directive[1], block)
                    if block.language == "cpp":
                        cpp_files.append((block, target))
                except (DocError, OSError, ValueError) as error:
                    failures.append(f"{relative}:{block.first_line - 1}: file '{block.directive[1]}': {error}")
            if block.language == "setup":
                code, output = scratch.run(block.lines[0])
                if code != 0:
                    failures.append(f"{relative}:{block.first_line}: setup '{block.lines[0]}' exited {code}:\n{output}")
            if block.language == "sh":
                commands = commands_of(block)
                for index, command in enumerate(commands):
                    following = commands[index + 1].text.strip() if index + 1 < len(commands) else ""
                    code, output = scratch.run(command.text)
                    where = f"{relative}:{command.line_number}: {command.shown}"
                    if code != 0 and following != "echo $?":
                        failures.append(f"{where}\n  exited {code}; if that is meant, show it with a following "
                                        f"'$ echo $?'\n  output:\n" + indent(output))
                        continue
                    if command.expected is None:
                        continue
                    expected, actual = trimmed(command.expected), trimmed(output.split("\n"))
                    if not matches(expected, actual):
                        diff = "\n".join(difflib.unified_diff(expected, actual, "the document shows", "hookctl printed",
                                                              lineterm=""))
                        failures.append(f"{where}\n  printed something else:\n" + indent(diff))
        compiled = scratch.compiled()
        for block, target in cpp_files:
            if os.path.realpath(target) not in compiled:
                failures.append(f"{relative}:{block.first_line - 1}: the ```cpp block written to {block.directive[1]} "
                                "is compiled by no command of this document: compile it in a command (cmake, c++), "
                                "or drop <!-- file: --> so that doc_examples compiles it")
    finally:
        scratch.close()
    return failures


def indent(text):
    return "\n".join("    " + line for line in text.rstrip("\n").split("\n"))


# ctest's SKIP_RETURN_CODE for doc_examples_sh (test/CMakeLists.txt).
NOT_RUN = 77


def managed_directory_isolated():
    """HOOKBUS_MANAGED_DIR isolates the managed layer only where nothing is at
    /etc/hookbus (docs/security.md): elsewhere the commands would read the
    administrator's settings, so they do not run (test/needs_root.hpp)."""
    if not os.path.lexists("/etc/hookbus"):
        return True
    print("*** NOT RUN: doc_examples_sh: /etc/hookbus exists, so HOOKBUS_MANAGED_DIR cannot isolate the managed "
          "layer; run the tests where it does not (a container)", file=sys.stderr)
    return False


def check_shell(hookctl, source_dir, doc_examples=None):
    if not managed_directory_isolated():
        return 1 if os.environ.get("HOOKBUS_REQUIRE_ROOT_TESTS") else NOT_RUN
    os.umask(0o022)  # hook discovery refuses group-writable files and directories
    failures = []
    count = 0
    for path in documents(source_dir):
        relative = path.relative_to(source_dir).as_posix()
        count += sum(len(commands_of(b)) for b in read_blocks(path, relative) if b.language == "sh")
        failures += check_document(path, relative, hookctl, source_dir, doc_examples)
    for failure in failures:
        print(failure + "\n", file=sys.stderr)
    print(f"{count} commands in the docs' sh blocks; {len(failures)} failures")
    return 1 if failures else 0


def main(argv):
    try:
        if len(argv) == 4 and argv[1] == "cpp":
            generate_cpp(argv[2], argv[3])
            return 0
        if len(argv) in (4, 5) and argv[1] == "sh":
            return check_shell(*argv[2:])
    except DocError as error:
        print(f"doc_examples: {error}", file=sys.stderr)
        return 1
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
