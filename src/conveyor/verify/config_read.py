"""The check configuration a change touches, read from git: the judges' version beside the head's.

The judges' version of a configuration file is the base's, or the spec's when the spec
writer's commits changed it: the spec's commit check pins those files by blob id
(`spec_pins`, kept in `SpecTests.config`), so a later rebase does not lose them. A pinned
blob this checkout no longer has falls back to the base's version (its change then counts
as the implementer's, which a person can accept).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from conveyor.core.check_config import ConfigEntry, Judge, judge_entries, matching
from conveyor.core.config import Commands
from conveyor.core.config_changes import ConfigChange, config_change, only_config
from conveyor.core.config_judges import Judges
from conveyor.git import plain
from conveyor.git.plain import Change, PlainGitError
from conveyor.verify.context import Context


def entries_for(judges: Judges, commands: Commands) -> tuple[ConfigEntry, ...]:
    """Every configuration entry that counts for this repository's commands."""
    named: dict[Judge, str | None] = {
        Judge.TESTS: " ; ".join(c for c in (commands.test, commands.test_files) if c),
        Judge.LINT: commands.lint,
        Judge.TYPECHECK: commands.typecheck,
    }
    return judge_entries(judges, named)


def text_at(ctx: Context, sha: str, path: str) -> str | None:
    """`path` at commit `sha` as text (None when missing there)."""
    data = plain.blob(ctx.tree, sha, path)
    return None if data is None else data.decode("utf-8", errors="replace")


def _pinned(ctx: Context, oid: str) -> str | bool | None:
    """The pinned blob's text (None: the spec deleted the file); False when it is gone."""
    if not oid:
        return None
    try:
        data = plain.git(ctx.tree, "cat-file", "blob", oid)
    except PlainGitError:
        return False
    return data.decode("utf-8", errors="replace")


def judges_text(ctx: Context, base: str, path: str, pins: Mapping[str, str]) -> str | None:
    """The judges' version of `path`: the spec's pinned blob, else the base's."""
    if path in pins:
        pinned = _pinned(ctx, pins[path])
        if pinned is not False:
            return pinned if isinstance(pinned, str) else None
    return text_at(ctx, base, path)


def config_changes_at(
    ctx: Context,
    entries: Sequence[ConfigEntry],
    pins: Mapping[str, str],
    *,
    base: str,
    head: str,
    changes: Iterable[Change],
) -> tuple[ConfigChange, ...]:
    """Each configuration file whose judged parts differ between the judges' version and
    the head."""
    found: list[ConfigChange] = []
    for path in sorted({c.path for c in changes} | set(pins)):
        if not matching(path, entries):
            continue
        before = judges_text(ctx, base, path, pins)
        change = config_change(path, entries, before, text_at(ctx, head, path))
        if change is not None:
            found.append(change)
    return tuple(found)


def spec_pins(
    ctx: Context, entries: Sequence[ConfigEntry], start: str, head: str, changes: Iterable[Change]
) -> tuple[tuple[str, str], ...]:
    """The configuration files the spec's commits changed, each with its blob id at the spec's
    head ("" for a file the spec deleted)."""
    pins: list[tuple[str, str]] = []
    for change in changes:
        before, after = text_at(ctx, start, change.path), text_at(ctx, head, change.path)
        if config_change(change.path, entries, before, after) is None:
            continue
        oid = "" if after is None else _blob_id(ctx, head, change.path)
        pins.append((change.path, oid))
    return tuple(pins)


def _blob_id(ctx: Context, sha: str, path: str) -> str:
    return plain.git(ctx.tree, "rev-parse", "--verify", f"{sha}:{path}").decode().strip()


def config_only_paths(
    ctx: Context, entries: Sequence[ConfigEntry], start: str, head: str, changes: Iterable[Change]
) -> frozenset[str]:
    """The changed files whose every difference is check configuration (CI's excepted): the
    spec writer may change them (the spec defines what is checked)."""
    return frozenset(
        c.path
        for c in changes
        if matching(c.path, entries)
        and only_config(c.path, entries, text_at(ctx, start, c.path), text_at(ctx, head, c.path))
    )
