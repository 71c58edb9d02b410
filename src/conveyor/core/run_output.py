"""What a JavaScript test runner's output says: whether tests ran, and which failed.

One reader per runner (`core.runners.Runner.reader`); the native ones (go, libtest,
ctest) are in `core.run_output_native`. A reading's `ran` is whether the output shows
the runner's summary at all: a runner that exits non-zero without one crashed or
failed to compile before reporting. Ids are `file::title` where the output names the
test's file (jest, vitest; mocha when a stack frame lies in a test file), else the
title alone (`files_known` False). Colour codes are removed first.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from conveyor.core.import_errors import ImportFailure
from conveyor.core.paths import matches_any

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_MOCHA_SUMMARY = re.compile(r"^\s*\d+ (?:passing|failing|pending)\b", re.MULTILINE)
_MOCHA_FAILING = re.compile(r"^\s*\d+ failing\s*$", re.MULTILINE)
_MOCHA_ITEM = re.compile(r"^  (\d+)\) (.*)$")
_FRAME = re.compile(r"\(?((?:/|\.{0,2}/?)[\w@.+/-]+\.[cm]?[jt]sx?):\d+:\d+\)?")
_JEST_FILE = re.compile(r"^\s*(PASS|FAIL)\s+(\S+)")
_JEST_CASE = re.compile(r"^\s*● (.+?)\s*$")
_JEST_SUMMARY = re.compile(r"^(?:Tests|Test Suites):\s", re.MULTILINE)
_JEST_MISSING = re.compile(r"Cannot find module '([^']+)' from '([^']+)'")
_SUITE_FAILED = "Test suite failed to run"
_VITEST_CASE = re.compile(
    r"^\s*(?:FAIL|×|✗)\s+(\S+?\.[cm]?[jt]sx?)(?:\s+>\s+(.+?))?(?:\s+\[.*\])?\s*$"
)
_VITEST_SUMMARY = re.compile(r"^\s*Test Files\s+\d", re.MULTILINE)


@dataclass(frozen=True)
class Reading:
    """What one run's output says: whether the runner reported at all, and what failed."""

    ran: bool
    failures: frozenset[str] = frozenset()
    files_known: bool = True
    imports: tuple[ImportFailure, ...] = ()


def plain_text(output: str) -> str:
    """The output without colour codes or carriage-return redraws."""
    return _ANSI.sub("", output).replace("\r\n", "\n")


def _frame_file(block: Sequence[str], globs: Sequence[str], root: str) -> str:
    """The first stack frame's file that is a test file, relative to the tree; "" for none."""
    top = root.rstrip("/") + "/" if root else ""
    for line in block:
        for match in _FRAME.finditer(line):
            path = match.group(1)
            if top and path.startswith(top):
                path = path[len(top) :]
            path = path.removeprefix("./")
            if not path.startswith("/") and matches_any(path, globs):
                return path
    return ""


def _mocha_blocks(lines: list[str]) -> list[tuple[str, list[str]]]:
    """Each failure after the `N failing` line: its title, and the lines that follow it."""
    blocks: list[tuple[str, list[str]]] = []
    i = 0
    while i < len(lines):
        match = _MOCHA_ITEM.match(lines[i])
        if match is None:
            if blocks:
                blocks[-1][1].append(lines[i])
            i += 1
            continue
        parts = [match.group(2).strip()]
        while not parts[-1].endswith(":") and i + 1 < len(lines) and lines[i + 1].strip():
            i += 1
            parts.append(lines[i].strip())
        blocks.append((" ".join(parts).removesuffix(":"), []))
        i += 1
    return blocks


def read_mocha(output: str, globs: Sequence[str], root: str = "") -> Reading:
    """Mocha's epilogue (spec, dot, list… reporters): `N failing`, then `1) title:` blocks."""
    text = plain_text(output)
    if not _MOCHA_SUMMARY.search(text):
        return Reading(ran=False)
    failing = list(_MOCHA_FAILING.finditer(text))
    if not failing:
        return Reading(ran=True)
    blocks = _mocha_blocks(text[failing[-1].end() :].splitlines())
    found: set[str] = set()
    all_filed = True
    for title, block in blocks:
        file = _frame_file(block, globs, root)
        all_filed = all_filed and bool(file)
        found.add(f"{file}::{title}" if file else title)
    return Reading(ran=True, failures=frozenset(found), files_known=all_filed)


def _jest_import(file: str, lines: list[str]) -> ImportFailure | None:
    for line in lines:
        match = _JEST_MISSING.search(line)
        if match is not None:
            module, where = match.group(1), match.group(2)
            return ImportFailure(file, match.group(0), module, _resolved(module, where), where)
    return None


def _resolved(module: str, where: str) -> str:
    """A relative module's path in the tree, without its suffix ("" for a package)."""
    if not module.startswith("."):
        return ""
    parts = where.split("/")[:-1]
    for part in module.split("/"):
        if part == "..":
            parts = parts[:-1]
        elif part != ".":
            parts.append(part)
    return "/".join(parts)


def read_jest(output: str, globs: Sequence[str], root: str = "") -> Reading:
    """Jest's `FAIL file` headers and their `● suite › test` cases; a suite that failed
    to run is its file (a missing module there is an import failure)."""
    text = plain_text(output)
    if not _JEST_SUMMARY.search(text):
        return Reading(ran=False)
    found: set[str] = set()
    imports: dict[str, ImportFailure] = {}
    current = ""
    lines = text.splitlines()
    for index, line in enumerate(lines):
        header = _JEST_FILE.match(line)
        if header is not None:
            current = header.group(2) if header.group(1) == "FAIL" else ""
            continue
        case = _JEST_CASE.match(line)
        if case is None or not current:
            continue
        if case.group(1) == _SUITE_FAILED:
            found.add(current)
            missing = _jest_import(current, lines[index + 1 : index + 6])
            if missing is not None:
                imports[current] = missing
        else:
            found.add(f"{current}::{case.group(1)}")
    return Reading(True, frozenset(found), imports=tuple(imports.values()))


def read_vitest(output: str, globs: Sequence[str], root: str = "") -> Reading:
    """Vitest's `FAIL file > suite > test` lines (a file alone: it failed to load)."""
    text = plain_text(output)
    if not _VITEST_SUMMARY.search(text):
        return Reading(ran=False)
    found: set[str] = set()
    for line in text.splitlines():
        match = _VITEST_CASE.match(line)
        if match is not None:
            file, title = match.group(1), match.group(2)
            found.add(f"{file}::{title.replace(' > ', ' › ')}" if title else file)
    return Reading(ran=True, failures=frozenset(found))
