"""The checks a branch requires: classic protection's and every active ruleset's, together.

GitHub applies both: a branch's required status checks are those of its classic
protection (when checks are enabled) and of each active branch ruleset whose
`conditions.ref_name` matches it; it must be up to date when either says strict.
The merge route and the mergeable state read `required_for`. The classic protection's
table is here too (`protection_of`); its routes are `rest.protection`'s.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from conveyor.emulator.model.store import Store, register_schema

register_schema(
    """
CREATE TABLE IF NOT EXISTS protections (
    repo_id INTEGER NOT NULL, branch TEXT NOT NULL, checks_enabled INTEGER NOT NULL,
    strict INTEGER NOT NULL DEFAULT 0, contexts TEXT NOT NULL DEFAULT '[]',
    enforce_admins INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (repo_id, branch));
"""
)


@dataclass(frozen=True)
class Protection:
    """A protected branch's rules the emulator enforces."""

    checks_enabled: bool
    strict: bool
    contexts: tuple[str, ...]
    enforce_admins: bool


def protection_of(store: Store, repo_id: int, branch: str) -> Protection | None:
    """The branch's protection, or None when it is unprotected."""
    row = store.one("SELECT * FROM protections WHERE repo_id = ? AND branch = ?", (repo_id, branch))
    if row is None:
        return None
    return Protection(
        bool(row["checks_enabled"]),
        bool(row["strict"]),
        tuple(json.loads(row["contexts"])),
        bool(row["enforce_admins"]),
    )


register_schema(
    """
CREATE TABLE IF NOT EXISTS rulesets (
    id INTEGER PRIMARY KEY, repo_id INTEGER NOT NULL, name TEXT NOT NULL,
    target TEXT NOT NULL, enforcement TEXT NOT NULL, conditions TEXT NOT NULL,
    rules TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
"""
)


@dataclass(frozen=True)
class Required:
    """The status check contexts a branch requires, and whether it must be up to date."""

    contexts: tuple[str, ...]
    strict: bool


@cache
def _pattern(glob: str) -> re.Pattern[str]:
    """GitHub's fnmatch for ref names: `*` stays within a path part, `**` crosses `/`."""
    out: list[str] = []
    i = 0
    while i < len(glob):
        if glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif glob[i] == "*":
            out.append("[^/]*")
            i += 1
        elif glob[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(glob[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


def _matches(patterns: list[str], ref: str, default_branch: str) -> bool:
    for pattern in patterns:
        if pattern == "~ALL":
            return True
        if pattern == "~DEFAULT_BRANCH":
            if ref == f"refs/heads/{default_branch}":
                return True
            continue
        if _pattern(pattern).match(ref):
            return True
    return False


def ruleset_applies(conditions: dict[str, Any], branch: str, default_branch: str) -> bool:
    """Whether a branch ruleset's `conditions.ref_name` takes in `branch`."""
    ref_name = conditions.get("ref_name") or {}
    ref = f"refs/heads/{branch}"
    include = list(ref_name.get("include") or [])
    exclude = list(ref_name.get("exclude") or [])
    return _matches(include, ref, default_branch) and not _matches(exclude, ref, default_branch)


def active_rules(store: Store, repo_id: int, branch: str) -> list[tuple[int, dict[str, Any]]]:
    """`(ruleset id, rule)` for every rule of an active branch ruleset that applies to `branch`."""
    repo = store.one("SELECT default_branch FROM repos WHERE id = ?", (repo_id,))
    default = str(repo["default_branch"]) if repo is not None else "main"
    rows = store.all(
        "SELECT * FROM rulesets WHERE repo_id = ? AND target = 'branch' "
        "AND enforcement = 'active' ORDER BY id",
        (repo_id,),
    )
    found: list[tuple[int, dict[str, Any]]] = []
    for row in rows:
        if ruleset_applies(json.loads(row["conditions"]), branch, default):
            found.extend((int(row["id"]), rule) for rule in json.loads(row["rules"]))
    return found


def required_for(store: Store, repo_id: int, branch: str) -> Required | None:
    """What `branch` requires before a merge, or None when nothing asks for checks."""
    contexts: list[str] = []
    strict = False
    enabled = False
    protection = protection_of(store, repo_id, branch)
    if protection is not None and protection.checks_enabled:
        enabled = True
        contexts.extend(protection.contexts)
        strict = protection.strict
    for _, rule in active_rules(store, repo_id, branch):
        if rule.get("type") != "required_status_checks":
            continue
        enabled = True
        params = rule.get("parameters") or {}
        contexts.extend(c["context"] for c in params.get("required_status_checks") or [])
        strict = strict or bool(params.get("strict_required_status_checks_policy"))
    if not enabled:
        return None
    return Required(tuple(dict.fromkeys(contexts)), strict)
