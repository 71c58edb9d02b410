"""The absolute paths a configured command names, and whether it runs each one.

A path the command runs (its program, or the script an interpreter is given) is read; any
other path may be written (`--junitxml=/tmp/report.xml`, `--basetemp=/tmp/x`), so where a
read-only bind over it would take writes away that worked before (in the box's own
`/tmp`), only what is run is given back (`tools.py`).
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

SEPARATOR = re.compile(r"^[;&|()<>]+$")
# Programs whose first word that is not an option is the script they run.
INTERPRETERS = re.compile(
    r"^(sh|bash|dash|zsh|ksh|source|\.|exec|env|nice|time|python[0-9.]*|node|perl|ruby|uv|uvx)$"
)


@dataclass(frozen=True)
class Named:
    """A path a command names, and whether the command runs it."""

    path: Path
    runs: bool


def _words(command: str) -> list[str]:
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = "#"
    try:
        return list(lexer)
    except ValueError:
        return command.split()


def _absolute(word: str, home: str | None) -> Path | None:
    text = word.split("=", 1)[1] if "=" in word and not word.startswith("/") else word
    if text.startswith("~/") and home:
        text = home + text[1:]
    return Path(text) if text.startswith("/") and len(text) > 1 else None


def named_paths(command: str, home: str | None) -> list[Named]:
    """The absolute paths `command` names (`~/` read as the owner's home, as outside), each
    marked when it is run: a simple command's program, or an interpreter's script."""
    found = []
    start, after_interpreter, redirect = True, False, False
    for word in _words(command):
        if SEPARATOR.match(word):
            start, after_interpreter = True, False
            redirect = word.endswith(">") or word.endswith("<")
            continue
        path = _absolute(word, home)
        assignment = "=" in word and not word.startswith(("/", "-"))
        runs = not redirect and ((start and not assignment) or after_interpreter)
        if path is not None:
            found.append(Named(path, runs))
        if start and not assignment:
            after_interpreter = bool(INTERPRETERS.match(Path(word).name))
            start = False
        elif after_interpreter and not word.startswith("-") and not assignment:
            after_interpreter = bool(INTERPRETERS.match(Path(word).name))  # `env python3 x`
        redirect = False
    return found
