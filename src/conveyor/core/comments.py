"""A language's comments, and whether a change to a file touches only them (CHK-3).

Each ecosystem (`core.ecosystems`) names its comment syntax: line comments (`#`, `//`),
block comments (`/* … */`) and the string quotes inside which neither starts. A file's
code is its text with every comment removed and runs of blank space made one; two
versions with the same code differ only in comments. Python's docstrings are read by
`core.typeonly` with Python's own parser instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Comments:
    """How a language writes comments and strings."""

    line: tuple[str, ...]
    block: tuple[tuple[str, str], ...] = ()
    quotes: tuple[str, ...] = ('"', "'")


HASH = Comments(line=("#",))
# C, C++, Java, Go, Rust, JavaScript, TypeScript; Go's and JavaScript's `…` strings too.
C_LIKE = Comments(line=("//",), block=(("/*", "*/"),), quotes=('"', "'", "`"))
# Rust: `'` starts a lifetime (`&'a str`) as often as a character.
RUST = Comments(line=("//",), block=(("/*", "*/"),), quotes=('"',))
_BLANKS = re.compile(r"[ \t\r\f\v]+")
_LINES = re.compile(r" ?\n[\s]*")


def _string_end(text: str, i: int, quote: str) -> int:
    j = i + 1
    while j < len(text) and text[j] != quote:
        j += 2 if text[j] == "\\" else 1
    return min(j + 1, len(text))


def _code(text: str) -> str:
    """Code between strings: blank runs made one space, line breaks kept (they may end a
    statement: Go's and JavaScript's automatic semicolons), blank lines dropped."""
    return _LINES.sub("\n", _BLANKS.sub(" ", text))


def strip_comments(text: str, syntax: Comments) -> str:
    """`text` without its comments; outside strings, blank space made single."""
    out: list[str] = []
    code: list[str] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char in syntax.quotes:
            end = _string_end(text, i, char)
            out += [_code("".join(code)), text[i:end]]
            code = []
            i = end
            continue
        opened = next(((a, b) for a, b in syntax.block if text.startswith(a, i)), None)
        if opened is not None:
            end = text.find(opened[1], i + len(opened[0]))
            end = len(text) if end == -1 else end + len(opened[1])
            code.append("\n" if "\n" in text[i:end] else " ")
            i = end
            continue
        if any(text.startswith(mark, i) for mark in syntax.line):
            end = text.find("\n", i)
            i = len(text) if end == -1 else end
            continue
        code.append(char)
        i += 1
    out.append(_code("".join(code)))
    return "".join(out).strip()


# Comments that change what tools do: a linter or type checker told to look away.
DIRECTIVES = re.compile(
    r"@ts-(?:ignore|nocheck|expect-error)|eslint-disable|biome-ignore|prettier-ignore|"
    r"NOLINT|#\s*pragma|//go:|#\[allow|noqa|type:\s*ignore|pragma:\s*no cover|istanbul ignore|"
    r"c8 ignore|@Suppress|@SuppressWarnings"
)


def comments_only(old: str, new: str, syntax: Comments) -> bool:
    """Whether `old` → `new` changes only comments, and adds no directive comment."""
    if strip_comments(old, syntax) != strip_comments(new, syntax):
        return False
    return len(DIRECTIVES.findall(new)) <= len(DIRECTIVES.findall(old))
