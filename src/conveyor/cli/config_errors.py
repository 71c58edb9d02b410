"""The config's mistakes as a person reads them: `FILE:LINE: KEY: what is wrong`, one line each.

From pydantic's error list and the file's text: each line names the line the key is on (or
its table's), an unknown key gets a "did you mean" (a close name beside it, or the table it
belongs under), a required key written under another table is one mistake (not "unknown
here" and "missing there"), and a word outside its allowed values gets the nearest one.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from typing import Any, Union, get_args, get_origin

from pydantic import BaseModel

from conveyor.core.config import Config

Loc = tuple[str, ...]
_HEADER = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(
    r"""^\s*((?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*')(?:\s*\.\s*(?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*'))*)\s*="""
)
_SCALARS = (str, int, float, bool)


def _parts(dotted: str) -> Loc:
    return tuple(
        part.strip().strip("\"'")
        for part in re.split(r"\.(?=(?:[^\"']|\"[^\"]*\"|'[^']*')*$)", dotted)
    )


def key_lines(text: str) -> dict[Loc, int]:
    """Where each table and key is first written (1-based), by its dotted path."""
    found: dict[Loc, int] = {}
    table: Loc = ()
    quote: str | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        if quote is not None:  # inside a multi-line string
            if line.count(quote) % 2 == 1:
                quote = None
            continue
        if header := _HEADER.match(line):
            table = _parts(header.group(1))
            found.setdefault(table, number)
            continue
        if key := _KEY.match(line):
            found.setdefault((*table, *_parts(key.group(1))), number)
            rest = line[key.end() :]
            for mark in ('"""', "'''"):
                if rest.count(mark) % 2 == 1:
                    quote = mark
    return found


def line_of(loc: Loc, lines: Mapping[Loc, int]) -> int | None:
    """The line of `loc`, else of the nearest table around it that is written."""
    for end in range(len(loc), 0, -1):
        if loc[:end] in lines:
            return lines[loc[:end]]
    return None


def _model_of(annotation: Any) -> type[BaseModel] | None:
    """The config section an annotation holds, if any (through `X | None`, `bool | Wiki`)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    if get_origin(annotation) in (Union, type(int | str)):
        for arg in get_args(annotation):
            if (model := _model_of(arg)) is not None:
                return model
    return None


def model_at(loc: Loc, root: type[BaseModel] = Config) -> type[BaseModel] | None:
    """The section a table path names (`agents.roles.review` is an AgentChoice)."""
    model: type[BaseModel] | None = root
    index = 0
    while index < len(loc) and model is not None:
        field = model.model_fields.get(loc[index])
        if field is None:
            return None
        annotation = field.annotation
        if get_origin(annotation) is dict:
            index += 1  # the dict's key names an entry; its value is the section
            annotation = get_args(annotation)[1]
        model = _model_of(annotation)
        index += 1
    return model


def known_keys(root: type[BaseModel] = Config, at: Loc = ()) -> list[Loc]:
    """Every key path of the config (dict entries left out: their names are free)."""
    found: list[Loc] = []
    for name, field in root.model_fields.items():
        found.append((*at, name))
        inner = _model_of(field.annotation)
        if inner is not None and get_origin(field.annotation) is not dict:
            found += known_keys(inner, (*at, name))
    return found


def _table(loc: Loc) -> str:
    return f"[{'.'.join(loc)}]" if loc else "the top level"


def _in_table(loc: Loc) -> str:
    return f"in [{'.'.join(loc)}]" if loc else "at the top level"


def _missing_here(path: Loc, missing: set[Loc]) -> bool:
    """Whether `path` is required and missing (itself, or inside a missing table)."""
    for end in range(len(path), 0, -1):
        if path[:end] in missing:
            model = model_at(path[:-1]) if end < len(path) else None
            return end == len(path) or (
                model is not None and model.model_fields[path[-1]].is_required()
            )
    return False


def _unknown(loc: Loc, missing: set[Loc], placed: set[Loc]) -> str:
    """An unknown key's text: where it belongs, or a close name beside it."""
    where, key = loc[:-1], loc[-1]
    homes = [path for path in known_keys() if path[-1] == key and path[:-1] != where]
    for home in homes:
        if _missing_here(home, missing):
            placed.add(home)
            return (
                f"belongs under {_table(home[:-1])}, not {_table(where)}"
                f" ({'.'.join(home)} is required)"
            )
    if homes:
        return f"unknown key {_in_table(where)}; did you mean {'.'.join(homes[0])}?"
    model = model_at(where)
    names = list(model.model_fields) if model is not None else []
    close = difflib.get_close_matches(key, names, n=1, cutoff=0.6)
    hint = f"; did you mean `{close[0]}`?" if close else ""
    return f"unknown key{hint}"


def _message(error: Mapping[str, Any]) -> str:
    """One error's text: `expected …, got VALUE[; did you mean …]`."""
    message = str(error.get("msg", "invalid")).removeprefix("Value error, ")
    message = message.replace("Input should be", "expected")
    message = message.replace("a valid tuple", "a list").replace("a valid list", "a list")
    given = error.get("input")
    if isinstance(given, _SCALARS) and "got " not in message:
        shown = repr(given) if len(repr(given)) <= 60 else repr(given)[:57] + "..."
        message = f"{message}, got {shown}"
    expected = (error.get("ctx") or {}).get("expected")
    if isinstance(given, str) and isinstance(expected, str):
        choices = re.findall(r"'([^']*)'", expected)
        close = difflib.get_close_matches(given, choices, n=1, cutoff=0.6)
        if close:
            message = f"{message}; did you mean {close[0]!r}?"
    return message


def describe(errors: Sequence[Mapping[str, Any]], text: str, source: str) -> list[str]:
    """Every mistake as `SOURCE:LINE: KEY: …` (no line when the key's table is not written)."""
    lines = key_lines(text)
    locs = [
        tuple(str(p) for p in e.get("loc", ()) if p not in ("__root__", "[key]")) for e in errors
    ]
    missing = {loc for loc, e in zip(locs, errors, strict=True) if e.get("type") == "missing"}
    placed: set[Loc] = set()
    said: list[tuple[Loc, str]] = []
    for loc, error in zip(locs, errors, strict=True):
        if error.get("type") == "extra_forbidden":
            said.append((loc, f"{'.'.join(loc)}: {_unknown(loc, missing, placed)}"))
    for loc, error in zip(locs, errors, strict=True):
        kind = error.get("type")
        if kind == "extra_forbidden":
            continue
        if kind == "missing":
            if any(_covers(loc, home) for home in placed):
                continue
            said.append((loc, f"{'.'.join(loc)}: required key is missing"))
            continue
        said.append((loc, f"{'.'.join(loc) or '(top level)'}: {_message(error)}"))
    placed_at = [(line_of(loc, lines), text) for loc, text in said]
    placed_at.sort(key=lambda pair: float("inf") if pair[0] is None else pair[0])
    return [_at(source, line, text) for line, text in placed_at]


def _covers(missing: Loc, home: Loc) -> bool:
    """A missing key or table that moving `home` into place fills (all it requires is there)."""
    if missing == home:
        return True
    if home[: len(missing)] != missing:
        return False
    model = model_at(missing)
    required = [n for n, f in model.model_fields.items() if f.is_required()] if model else []
    return required == [home[-1]]


def _at(source: str, line: int | None, text: str) -> str:
    return f"{source}:{line}: {text}" if line is not None else f"{source}: {text}"
