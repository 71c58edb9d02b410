"""The suppression markers of each ecosystem: comments and marks that silence a judge.

Data, keyed by ecosystem name (the same names as `core.check_config`); a file's ecosystem
comes from its suffix (`ECOSYSTEM_OF`). Each marker is a regular expression on one line
and the kind of judge it silences:

- `lint`, `types`, `coverage`: the line (or file) is exempt from the linter, the type
  checker, the coverage gate;
- `skip`: a test is skipped or expected to fail; counted only on a test the base had
  (`core.suppressions`);
- `focus`: a test is focused (`it.only`, `fit`), which skips every other one: always counted.

A marker's `token` group, when it has one, is its argument (the codes of a `noqa`); the
shown marker is `name` followed by it (`noqa: E501`, `type: ignore[attr-defined]`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from conveyor.core.ecosystems import of_path


@dataclass(frozen=True)
class Marker:
    """One suppression: how it reads, what it silences, and its name as people see it."""

    name: str
    kind: str
    pattern: re.Pattern[str]


def _m(name: str, kind: str, pattern: str) -> Marker:
    return Marker(name, kind, re.compile(pattern))


_PYTHON = (
    _m("ruff: noqa", "lint", r"#\s*(?:ruff|flake8)\s*:\s*noqa(?P<token>\s*:\s*[\w ,]+)?"),
    _m("noqa", "lint", r"#\s*noqa\b(?P<token>\s*:\s*[A-Z]+[0-9]+(?:\s*,\s*[A-Z]+[0-9]+)*)?"),
    _m("type: ignore", "types", r"#\s*type\s*:\s*ignore(?P<token>\[[^\]]*\])?"),
    _m("pyright: ignore", "types", r"#\s*pyright\s*:\s*ignore(?P<token>\[[^\]]*\])?"),
    _m("mypy:", "types", r"#\s*mypy\s*:(?P<token>\s*[\w=, -]+)"),
    _m("pragma: no cover", "coverage", r"#\s*pragma\s*:\s*no\s*(?:cover|branch)"),
    _m("pylint: disable", "lint", r"#\s*pylint\s*:\s*disable(?:-next)?(?P<token>=[\w, -]+)"),
    _m("nosec", "lint", r"#\s*nosec\b"),
    _m("pytest mark", "skip", r"@pytest\.mark\.(?P<token>skip|skipif|xfail)\b"),
    _m("pytest call", "skip", r"\bpytest\.(?P<token>skip|xfail|importorskip)\s*\("),
    _m("pytestmark", "skip", r"^\s*pytestmark\s*=.*\b(?P<token>skip|skipif|xfail)\b"),
    _m(
        "unittest",
        "skip",
        r"@unittest\.(?P<token>skip|skipIf|skipUnless|expectedFailure)\b|"
        r"\.skipTest\s*\(|\braise\s+(?:unittest\.)?SkipTest\b",
    ),
)
_JS = (
    _m(
        "eslint-disable",
        "lint",
        r"eslint-disable(?:-next-line|-line)?(?P<token>[ \t]+[\w/@,\t -]+)?",
    ),
    _m("@ts-", "types", r"@ts-(?P<token>ignore|expect-error|nocheck)\b"),
    _m("tslint:disable", "lint", r"tslint:disable"),
    _m("biome-ignore", "lint", r"biome-ignore(?P<token>[ \t]+[\w/]+)?"),
    _m("coverage ignore", "coverage", r"\b(?P<token>istanbul|c8|v8)\s+ignore\b"),
    _m("test skip", "skip", r"\b(?:it|test|describe|context|suite)\.(?P<token>skip|todo)\s*\("),
    _m("test skip", "skip", r"(?<![\w.])(?P<token>xit|xdescribe|xtest|xcontext)\s*\("),
    _m("test focus", "focus", r"\b(?:it|test|describe|context|suite)\.(?P<token>only)\s*\("),
    _m("test focus", "focus", r"(?<![\w.])(?P<token>fit|fdescribe|ftest)\s*\("),
)
_GO = (
    _m("nolint", "lint", r"//\s*nolint\b(?P<token>:[\w,-]+)?"),
    _m("lint:ignore", "lint", r"//\s*lint:ignore(?P<token>\s+\w+)?"),
    _m("t.Skip", "skip", r"\b\w+\.(?P<token>Skip|SkipNow|Skipf)\s*\("),
    _m("build ignore", "skip", r"^\s*//\s*(?:go:build|\+build)\s+(?P<token>ignore)\b"),
)
_RUST = (
    _m("allow(", "lint", r"#!?\[\s*(?:allow|expect)\s*\((?P<token>[^)]*\))"),
    _m("ignore", "skip", r"#\[\s*(?P<token>ignore)\b"),
)
_JAVA = (
    _m("@SuppressWarnings(", "lint", r"@SuppressWarnings\s*\((?P<token>[^)]*\))"),
    _m("@SuppressFBWarnings", "lint", r"@SuppressFBWarnings\b"),
    _m("NOPMD", "lint", r"//\s*NOPMD\b"),
    _m("CHECKSTYLE:OFF", "lint", r"CHECKSTYLE[:.]OFF"),
    _m("test disabled", "skip", r"@(?P<token>Disabled|Ignore)\b"),
)
_C = (
    _m("NOLINT", "lint", r"\bNOLINT(?:NEXTLINE|BEGIN)?(?P<token>\([^)]*\))?"),
    _m(
        "diagnostic ignored",
        "lint",
        r"#\s*pragma\s+(?:GCC|clang)\s+diagnostic\s+ignored(?P<token>\s+\"[^\"]+\")?",
    ),
    _m("cppcheck-suppress", "lint", r"cppcheck-suppress(?P<token>\s+\w+)?"),
    _m("LCOV_EXCL", "coverage", r"\bLCOV_EXCL_(?P<token>LINE|START|BR_LINE)"),
    _m("GTEST_SKIP", "skip", r"\b(?P<token>GTEST_SKIP)\s*\("),
    _m("DISABLED_", "skip", r"\bTEST(?:_F|_P)?\s*\([^)]*\b(?P<token>DISABLED_)\w+"),
)

MARKERS: dict[str, tuple[Marker, ...]] = {
    "python": _PYTHON,
    "javascript": _JS,
    "typescript": _JS,
    "go": _GO,
    "rust": _RUST,
    "java": _JAVA,
    "c": _C,
}

# A test's definition per ecosystem: the name a skip marker near it applies to.
DEFINITIONS: dict[str, re.Pattern[str]] = {
    "python": re.compile(r"^\s*(?:async\s+)?def\s+(?P<name>\w+)|^\s*class\s+(?P<cls>\w+)"),
    "javascript": re.compile(
        r"\b(?:it|test|describe|context|suite)\w*(?:\.\w+)?\s*\(\s*(['\"`])(?P<name>.+?)\1"
    ),
    "go": re.compile(r"^func\s+(?:\([^)]*\)\s*)?(?P<name>\w+)"),
    "rust": re.compile(r"\bfn\s+(?P<name>\w+)"),
    "java": re.compile(r"\bvoid\s+(?P<name>\w+)\s*\("),
    "c": re.compile(r"\bTEST(?:_F|_P)?\s*\(\s*\w+\s*,\s*(?:DISABLED_)?(?P<name>\w+)"),
}
DEFINITIONS["typescript"] = DEFINITIONS["javascript"]


def ecosystem_of(path: str) -> str | None:
    """The ecosystem a file's suffix names (`core.ecosystems`' sources), or None."""
    found = of_path(path)
    return None if found is None else found.name
