"""One section of a configuration file: read it, compare it, and put another version's back.

A section is a dotted key in TOML and JSON (`tool.pytest`), an INI section name with
`*` allowed (`mypy-*`). `value` reads it (None when the file or section is missing,
`UNREADABLE` when the file does not parse); `splice` gives the head's file with the
sections as another version has them, everything else kept, and proves it by reading
the result back: a section it cannot cut out cleanly (dotted keys or an inline table
outside its own headers) gives None, and the caller treats the file as one it cannot
judge that way.
"""

from __future__ import annotations

import configparser
import copy
import fnmatch
import json
import re
import tomllib
from collections.abc import Sequence
from typing import Final

UNREADABLE: Final = "<unreadable>"
_TOML_HEADER = re.compile(r"^\s*\[\[?\s*(?P<key>[^\[\]]+?)\s*\]\]?\s*(?:#.*)?$")
_INI_HEADER = re.compile(r"^\s*\[(?P<key>[^\]]+)\]\s*(?:[#;].*)?$")


def file_format(path: str) -> str:
    """`toml`, `json` or `ini`, from the file's name."""
    name = path.rsplit("/", 1)[-1]
    if name.endswith(".toml"):
        return "toml"
    if name.endswith((".json", ".jsonc")):
        return "json"
    return "ini"


def _toml_key(text: str) -> tuple[str, ...]:
    """A TOML header's key, split at the dots outside quotes."""
    parts, current, quote = [], "", ""
    for char in text:
        if quote:
            quote = "" if char == quote else quote
            current += "" if not quote else char
        elif char in "\"'":
            quote = char
        elif char == ".":
            parts.append(current.strip())
            current = ""
        else:
            current += char
    return (*parts, current.strip())


def _parse(text: str, fmt: str) -> object:
    """The file's data (a dict), or UNREADABLE."""
    try:
        if fmt == "toml":
            return tomllib.loads(text)
        if fmt == "json":
            data = json.loads(text) if text.strip() else {}
            return data if isinstance(data, dict) else UNREADABLE
        parser = configparser.ConfigParser(interpolation=None, strict=False)
        parser.read_string(text)
        return {name: dict(parser.items(name, raw=True)) for name in parser.sections()}
    except (tomllib.TOMLDecodeError, ValueError, configparser.Error):
        return UNREADABLE


def parsed(text: str | None, fmt: str) -> object:
    """The whole file's data ({} for a missing file), or UNREADABLE."""
    return {} if text is None else _parse(text, fmt)


def _get(data: dict[str, object], fmt: str, section: str) -> object | None:
    if fmt == "ini":
        found = {n: v for n, v in data.items() if fnmatch.fnmatchcase(n, section)}
        return found or None
    node: object = data
    for part in section.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def value(text: str | None, fmt: str, section: str) -> object | None:
    """The section's data in `text`: None when absent, UNREADABLE when the file does not parse."""
    if text is None:
        return None
    data = _parse(text, fmt)
    if not isinstance(data, dict):
        return UNREADABLE
    return _get(data, fmt, section)


def _without(data: dict[str, object], fmt: str, sections: Sequence[str]) -> dict[str, object]:
    """`data` with the sections taken out (tables left empty by it removed too)."""
    rest = copy.deepcopy(data)
    for section in sections:
        if fmt == "ini":
            rest = {n: v for n, v in rest.items() if not fnmatch.fnmatchcase(n, section)}
            continue
        *parents, last = section.split(".")
        trail: list[dict[str, object]] = [rest]
        for part in parents:
            node = trail[-1].get(part)
            if not isinstance(node, dict):
                break
            trail.append(node)
        else:
            trail[-1].pop(last, None)
            for holder, part in zip(reversed(trail[:-1]), reversed(parents), strict=True):
                if holder.get(part) == {}:
                    holder.pop(part)
    return rest


def _belongs(header: str, fmt: str, sections: Sequence[str]) -> bool:
    if fmt == "ini":
        return any(fnmatch.fnmatchcase(header, s) for s in sections)
    key = _toml_key(header)
    return any(key[: len(s.split("."))] == tuple(s.split(".")) for s in sections)


def _blocks(text: str, fmt: str) -> list[tuple[str | None, str]]:
    """The file as (header, text) blocks; the first, before any header, has None."""
    header = _TOML_HEADER if fmt == "toml" else _INI_HEADER
    blocks: list[tuple[str | None, str]] = [(None, "")]
    for line in text.splitlines(keepends=True):
        if found := header.match(line):
            blocks.append((found.group("key"), line))
        else:
            blocks[-1] = (blocks[-1][0], blocks[-1][1] + line)
    return blocks


def _json_spliced(
    head: dict[str, object], judges: dict[str, object], sections: Sequence[str]
) -> dict[str, object]:
    result = _without(head, "json", sections)
    for section in sections:
        wanted = _get(judges, "json", section)
        if wanted is None:
            continue
        node = result
        *parents, last = section.split(".")
        for part in parents:
            child = node.setdefault(part, {})
            if not isinstance(child, dict):
                child = node[part] = {}
            node = child
        node[last] = wanted
    return result


def splice(head: str | None, judges: str | None, fmt: str, sections: Sequence[str]) -> str | None:
    """The head's file with `sections` as `judges` has them; None when that cannot be
    done cleanly (checked by reading the result back)."""
    head_text, judges_text = head or "", judges or ""
    head_data, judges_data = _parse(head_text, fmt), _parse(judges_text, fmt)
    if not isinstance(head_data, dict) or not isinstance(judges_data, dict):
        return None
    if fmt == "json":
        text = json.dumps(_json_spliced(head_data, judges_data, sections), indent=2) + "\n"
    else:
        kept = [
            b for h, b in _blocks(head_text, fmt) if h is None or not _belongs(h, fmt, sections)
        ]
        theirs = [
            b for h, b in _blocks(judges_text, fmt) if h is not None and _belongs(h, fmt, sections)
        ]
        joined = "".join(kept)
        text = joined + ("\n" if joined and not joined.endswith("\n") else "") + "".join(theirs)
    back = _parse(text, fmt)
    if not isinstance(back, dict):
        return None
    if _without(back, fmt, sections) != _without(head_data, fmt, sections):
        return None
    if any(_get(back, fmt, s) != _get(judges_data, fmt, s) for s in sections):
        return None
    return text
