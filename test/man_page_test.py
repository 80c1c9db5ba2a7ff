#!/usr/bin/env python3
"""CTest man_page: hookctl's man page says what hookctl's help says.

    man_page_test.py HOOKCTL MAN_PAGE

The page (roff, or gzip'ed roff) is rendered as man shows it (groff -man,
plain text); every paragraph of `hookctl --help` and of `hookctl help
COMMAND`, for every command completion offers, must appear in it word for
word, in order (headings such as "options:" aside, which the page may set as
sections). So a help text changed since the page was made, or a generator
that drops or changes words, fails here, naming the paragraph.
"""

import gzip
import re
import subprocess
import sys


def run(*command, text_input=None):
    return subprocess.run(command, check=True, capture_output=True, input=text_input).stdout


def words(text):
    return text.split()


def contains(haystack, needle):
    size = len(needle)
    return any(haystack[i:i + size] == needle for i in range(len(haystack) - size + 1))


def help_texts(hookctl):
    """Each help text, named by the command line that prints it: the overview,
    and every command's (a group's, such as trace, for each of its commands)."""
    texts = {"hookctl --help": run(hookctl, "--help").decode()}
    for command in run(hookctl, "__complete", "--", "").decode().split():
        text = run(hookctl, "help", command).decode()
        if not text.startswith(f"usage: hookctl {command} COMMAND "):
            texts[f"hookctl help {command}"] = text
            continue
        for second in run(hookctl, "__complete", "--", command, "").decode().split():
            texts[f"hookctl help {command} {second}"] = run(hookctl, "help", command, second).decode()
    return texts


def main():
    hookctl, page_file = sys.argv[1:]
    page = open(page_file, "rb").read()
    if page_file.endswith(".gz"):
        page = gzip.decompress(page)
    rendered = run("groff", "-man", "-Tascii", "-P-c", "-P-b", "-P-u", text_input=page).decode()
    rendered = re.sub(r".\x08", "", rendered)  # any overstrike left
    page_words = words(rendered)

    missing = []
    for source, text in help_texts(hookctl).items():
        for paragraph in text.strip("\n").split("\n\n"):
            lines = [line for line in paragraph.split("\n") if not re.fullmatch(r"[a-z ]+:", line)]
            expected = [word for word in words("\n".join(lines)) if word != "usage:"]
            if expected and not contains(page_words, expected):
                missing.append(f"{source}:\n{paragraph}")
    if missing:
        sys.exit(f"{page_file} does not say what hookctl's help says (rebuild the page: "
                 f"tools/hookctl/man_page.py); missing:\n\n" + "\n\n".join(missing))
    print(f"{page_file}: every paragraph of hookctl's help, word for word")


if __name__ == "__main__":
    main()
