"""A change to what configures a check, found by comparing the judges' version with the head's.

The judges' version of a file is the base's, or the spec's when the spec writer changed it
(the spec defines what is checked; `SpecTests.config` pins its blobs). For a file that
the table (`core.check_config`) names whole, any difference counts; for sections, only
theirs (a dependency added to `pyproject.toml` is not a change to `[tool.pytest…]`).
`put_back` is the head's file with the judges' version of what changed, or None when
the sections cannot be cut out cleanly (`core.config_sections.splice`).
"""

from __future__ import annotations

import difflib
import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from conveyor.core.check_config import ConfigEntry, Judge, matching
from conveyor.core.config_sections import file_format, parsed, splice, value

MAX_DIFF_LINES = 60


@dataclass(frozen=True)
class ConfigChange:
    """One configuration file whose judged parts differ between the judges' version and the head.

    `sections` is empty when the whole file counts; `judges` the checks it configures.
    """

    path: str
    judges: tuple[Judge, ...]
    sections: tuple[str, ...]
    before: str | None
    after: str | None

    @property
    def key(self) -> str:
        """What a person's acceptance names: the file, the parts and both versions of them."""
        raw = json.dumps([self.path, self.sections, self.before, self.after])
        return hashlib.sha256(f"config\0{raw}".encode()).hexdigest()[:16]

    @property
    def what(self) -> str:
        """`path` or `path [tool.pytest, …]`, and the checks it configures."""
        parts = f" [{', '.join(self.sections)}]" if self.sections else ""
        how = "added" if self.before is None else "deleted" if self.after is None else "changed"
        return f"{self.path}{parts} ({how}; configures {', '.join(self.judges)})"

    def diff(self, limit: int = MAX_DIFF_LINES) -> str:
        """The file's unified diff from the judges' version to the head's, cut at `limit` lines."""
        lines = list(
            difflib.unified_diff(
                (self.before or "").splitlines(),
                (self.after or "").splitlines(),
                f"judges/{self.path}",
                f"head/{self.path}",
                lineterm="",
            )
        )
        cut = lines[:limit] + ([f"… {len(lines) - limit} more lines"] if len(lines) > limit else [])
        return "\n".join(cut)

    def put_back(self) -> str | None:
        """The head's file with the judges' version of its judged parts (None: delete it);
        `UNSPLICEABLE` when its sections cannot be put back alone."""
        if not self.sections:
            return self.before
        if self.before is None and self.after is None:
            return None
        spliced = splice(self.after, self.before, file_format(self.path), self.sections)
        return UNSPLICEABLE if spliced is None else spliced


UNSPLICEABLE = "\0unspliceable"


def _changed_sections(
    path: str, entries: Sequence[ConfigEntry], before: str | None, after: str | None
) -> tuple[str, ...]:
    fmt = file_format(path)
    return tuple(
        e.section for e in entries if value(before, fmt, e.section) != value(after, fmt, e.section)
    )


def config_change(
    path: str, entries: Iterable[ConfigEntry], before: str | None, after: str | None
) -> ConfigChange | None:
    """The change to `path`'s judged parts, or None when they are the same (or it is not one)."""
    found = matching(path, entries)
    if not found or before == after:
        return None
    whole = [e for e in found if not e.section]
    if whole:
        judges = tuple(dict.fromkeys(e.judge for e in found))
        return ConfigChange(path, judges, (), before, after)
    sectioned = [e for e in found if e.section]
    sections = _changed_sections(path, sectioned, before, after)
    if not sections:
        return None
    judges = tuple(dict.fromkeys(e.judge for e in sectioned if e.section in sections))
    return ConfigChange(path, judges, tuple(dict.fromkeys(sections)), before, after)


def only_config(
    path: str, entries: Iterable[ConfigEntry], before: str | None, after: str | None
) -> bool:
    """Whether everything that differs in `path` is check configuration (CI's excepted)."""
    found = [e for e in matching(path, entries) if e.judge is not Judge.CI]
    if not found:
        return False
    if any(not e.section for e in found):
        return True
    fmt = file_format(path)
    put_back = splice(after, before, fmt, [e.section for e in found])
    return put_back is not None and parsed(put_back, fmt) == parsed(before, fmt)
