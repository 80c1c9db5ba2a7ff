#!/usr/bin/env python3
"""The tests the docs cite exist (CTest doc_test_names).

    doc_test_names_test.py SOURCE_DIR

docs/security.md, docs/semantics.md and the other documents prove each rule
by naming its tests, in backticks: `Suite.Test` (a GoogleTest TEST, TEST_F,
TEST_P or TYPED_TEST of test/, or a CTest added by name in test/CMakeLists.txt),
`Suite.*` (every test of a suite, which must have one), `Prefix/Suite.*/Param`
(a parameterised suite's instantiation), `Suite.Test{A,B}` (one citation per
alternative), `test_file.py::test_name` (a pytest test of test/python/). In the Test column of a table a cell may abbreviate: a bare
`Test`, `…End` (the end of a name) or `Suite.Start…` stands for the one test it
fits, of the suite cited before it in the cell when there is one.

The test fails, naming the document and line, for each citation no test
answers, and for each abbreviation that fits no test or more than one: a rule
whose test was renamed or removed proves nothing any more.
"""

import pathlib
import re
import sys

# Backticked text that has a test name's shape but names no test.
NOT_TEST_NAMES = {
    "Suite.Test": "how the docs cite tests (security.md, CONTRIBUTING.md)",
    "Suite.*": "likewise",
    "Suite.Start…": "likewise",
    "Edit.*": "a Claude Code matcher (claude-code.md)",
}

DOCUMENTS = ("docs/*.md", "README.md", "CONTRIBUTING.md")  # CHANGELOG.md names tests as they were then

GTEST = re.compile(r"^\s*(?:TEST|TEST_F|TEST_P|TYPED_TEST|TYPED_TEST_P)\(\s*(\w+)\s*,\s*(\w+)\s*\)", re.M)
INSTANTIATION = re.compile(r"INSTANTIATE_TEST_SUITE_P\(\s*(\w+)\s*,\s*(\w+)\s*,", re.M)
CTEST = re.compile(r"add_test\(\s*NAME\s+([^\s)]+)")
PYTEST_DEF = re.compile(r"^def (test_\w+)\(", re.M)
PYTEST = re.compile(r"^(test_\w+\.py)::(test_\w+)$")
QUALIFIED = re.compile(r"^(?:(\w+)/)?([A-Z]\w*)\.([A-Z*…][\w*…]*)(?:/(\w+|\*))?$")
BARE = re.compile(r"^…?[A-Z]\w*…?$")
BACKTICKED = re.compile(r"`([^`\s]+)`")


def read_tests(root):
    """{suite: {test names}}, and {instantiation prefix: {suites}} of TEST_P suites."""
    tests, prefixes = {}, {}
    for path in sorted((root / "test").rglob("*")):
        if path.suffix in (".cpp", ".hpp"):
            text = path.read_text(errors="replace")
            for suite, name in GTEST.findall(text):
                tests.setdefault(suite, set()).add(name)
            for prefix, suite in INSTANTIATION.findall(text):
                prefixes.setdefault(prefix, set()).add(suite)
        elif path.suffix == ".py" and path.parent.name == "python" and path.name.startswith("test_"):
            tests.setdefault(path.name, set()).update(PYTEST_DEF.findall(path.read_text(errors="replace")))
        elif path.name == "CMakeLists.txt" or path.suffix == ".cmake":
            # A CTest's name: `${variable}` parts stand for any text.
            for name in CTEST.findall(path.read_text(errors="replace")):
                if "." in name:
                    suite, test = name.split(".", 1)
                    tests.setdefault(suite, set()).add(test)
    return tests, prefixes


def fits(pattern, name):
    """Whether a cited name (with `*` and `…` for any text) fits a test's name (with `${...}` for any text)."""
    cited = re.escape(pattern).replace(r"\*", ".*").replace("…", ".*")
    if "${" not in name:
        return re.fullmatch(cited, name) is not None
    # A CTest name made with a CMake variable: the citation is a value it can take.
    declared = ".*".join(re.escape(part) for part in re.split(r"\$\{\w+\}", name))
    return "*" not in pattern and "…" not in pattern and re.fullmatch(declared, pattern) is not None


def expand(citation):
    """`Suite.Test{A,B}` is two citations."""
    match = re.search(r"\{([^{}]*)\}", citation)
    if match is None:
        return [citation]
    return [alternative for choice in match.group(1).split(",")
            for alternative in expand(citation[: match.start()] + choice + citation[match.end():])]


def check(citation, previous_suite, in_test_cell, tests, prefixes):
    """(why it names no test or None, the suite it cites or None); (None, None) when it is no test name at all."""
    pytest = PYTEST.match(citation)
    if pytest is not None:
        file, name = pytest.groups()
        if name not in tests.get(file, set()):
            return f"`{citation}`: no test {name} in test/python/{file}", None
        return None, None
    qualified = QUALIFIED.match(citation)
    if qualified is None:
        if not (in_test_cell and BARE.match(citation)):
            return None, None
        suites = [previous_suite] if previous_suite in tests else sorted(tests)
        matches = [(suite, name) for suite in suites for name in tests[suite] if fits(citation, name)]
        if len(matches) != 1:
            where = f"of {previous_suite}" if previous_suite in tests else "of any suite"
            return f"`{citation}` fits {len(matches)} tests {where}, not one", previous_suite
        return None, matches[0][0]
    prefix, suite, name, parameter = qualified.groups()
    if prefix is not None and suite not in prefixes.get(prefix, set()):
        return f"`{citation}`: no INSTANTIATE_TEST_SUITE_P({prefix}, {suite}, ...) in test/", suite
    if suite not in tests:
        return f"`{citation}`: no test suite {suite} in test/", suite
    matches = [test for test in tests[suite] if fits(name, test)]
    if name == "*":
        return (None if matches else f"`{citation}`: the suite has no test"), suite
    if not matches:
        return f"`{citation}`: no test {name} in suite {suite}", suite
    if len(matches) > 1:
        return f"`{citation}` fits {len(matches)} tests of {suite}, not one: {', '.join(sorted(matches))}", suite
    return None, suite


def test_column(header):
    """The index of a table's Test column ("Test", "Tests", "Test (reducers)"), or None."""
    cells = [cell.strip() for cell in header.strip().strip("|").split("|")]
    return next((i for i, cell in enumerate(cells) if re.match(r"Tests?\b", cell)), None)


def cells_of(line):
    """A table row's cells (`\\|` is no separator)."""
    return [cell for cell in re.split(r"(?<!\\)\|", line.strip().strip("|"))]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = pathlib.Path(sys.argv[1]).resolve()
    tests, prefixes = read_tests(root)
    failures, checked = [], 0
    for document in sorted({path for pattern in DOCUMENTS for path in root.glob(pattern)}):
        in_table, column = False, None
        for number, line in enumerate(document.read_text().splitlines(), 1):
            if not line.startswith("|"):
                in_table, column = False, None
                cells = [line]
            else:
                if not in_table:  # the header
                    in_table, column = True, test_column(line)
                cells = cells_of(line)
            for index, cell in enumerate(cells):
                in_test_cell = column is not None and index == column
                suite = None
                for token in BACKTICKED.findall(cell):
                    if token in NOT_TEST_NAMES:
                        continue
                    for citation in expand(token):
                        why, cited_suite = check(citation, suite, in_test_cell, tests, prefixes)
                        if cited_suite is None and why is None and not (QUALIFIED.match(citation) or PYTEST.match(citation)):
                            continue
                        checked += 1
                        suite = cited_suite or suite
                        if why is not None:
                            failures.append(f"{document.relative_to(root)}:{number}: {why}")
    print(f"{sum(map(len, tests.values()))} tests in {len(tests)} suites; {checked} citations checked")
    for failure in failures:
        print("FAIL: " + failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
