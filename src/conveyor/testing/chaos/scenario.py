"""The chaos world's issues: one module each, and a pair that edits one shared file.

Each issue's spec writer stubs `inventory/<tag>.py` with a failing test, its implementer
makes it return 1, and the three lenses, acceptance and security find nothing. The two
issues of the conflicting pair also each write `inventory/shared.py` differently, so the
later of them is behind with a conflict at merge, goes to sync, and its resolver keeps
the branch's side. The repository's test command is a trivial real command (see TEST).
"""

from __future__ import annotations

from typing import Any

from conveyor.core.findings import CODE_LENSES
from conveyor.core.replies import SPEC_END

TEST = (
    'for t in tests/test_*.py; do m="inventory/${t#tests/test_}"; '
    'if [ ! -f "$m" ] || grep -q NotImplementedError "$m"; then exit 1; fi; done'
)
STUB = '"""{tag}."""\n\n\ndef {tag}() -> int:\n    """One."""\n    raise NotImplementedError\n'
TEST_FILE = (
    "from inventory.{tag} import {tag}\n\n\ndef test_{tag}() -> None:\n    assert {tag}() == 1\n"
)
SHARED = "inventory/shared.py"
# Finish a stopped rebase: take the branch's side of each conflict, continue, until done.
RESOLVE = (
    'n=0; while [ -d "$(git rev-parse --git-path rebase-merge)" ] && [ $n -lt 10 ]; do '
    "git diff --name-only --diff-filter=U | xargs -r git checkout --theirs -- ; git add -A; "
    "GIT_EDITOR=true git rebase --continue || GIT_EDITOR=true git rebase --skip; n=$((n+1)); "
    'done; test ! -d "$(git rev-parse --git-path rebase-merge)"'
)
LENSES = CODE_LENSES


def done_module(tag: str) -> str:
    """The module as the implementer leaves it."""
    return STUB.format(tag=tag).replace("raise NotImplementedError", "return 1")


def _reply(answer: dict[str, Any]) -> dict[str, Any]:
    return {"actions": [{"reply": answer}]}


def _entry(tag: str, kind: str, *turns: dict[str, Any]) -> dict[str, Any]:
    return {"tag": tag, "kind": kind, "turns": list(turns)}


def _spec(tag: str) -> dict[str, Any]:
    interface = {
        "name": tag, "kind": "function", "where": f"inventory/{tag}.py", "status": "new",
        "signature": f"def {tag}() -> int", "behaviours": [f"`{tag}()` returns 1."],
    }  # fmt: skip
    spec = (
        f"## Behaviour\n- `{tag}()` returns 1.\n\n## Out of scope\nNothing.\n\n## Design\n"
        f"`inventory/{tag}.py`.\n\n## Test interfaces\n`inventory.{tag}.{tag}`\n\n## Tests\n"
        f"`tests/test_{tag}.py`.\n\n## Wiki updates\nNone.\n\n## Assumptions and risks\nNone."
        f"\n\n## Sources\nThe issue.\n{SPEC_END}\n"
    )
    files = [
        {"write": {"path": f"inventory/{tag}.py", "content": STUB.format(tag=tag)}},
        {"write": {"path": f"tests/test_{tag}.py", "content": TEST_FILE.format(tag=tag)}},
        {"commit": f"Stub {tag}() and its failing test"},
    ]
    answer: dict[str, Any] = {
        "decision": "ready", "spec": spec, "questions": [], "sub_issues": [],
        "interfaces": [interface], "no_tests_reason": None, "wiki_only": False,
        "spec_in_draft": False, "status": "done", "summary": "spec ready",
    }  # fmt: skip
    return _entry(tag, "spec", {"actions": files}, _reply(answer))


def _implement(tag: str, *, shared: bool) -> dict[str, Any]:
    writes: list[dict[str, Any]] = [
        {"write": {"path": f"inventory/{tag}.py", "content": done_module(tag)}}
    ]
    if shared:
        text = f'"""Shared, as #{tag} wrote it."""\n\nOWNER = "{tag}"\n'
        writes.append({"write": {"path": SHARED, "content": text}})
    actions = [*writes, {"commit": f"Implement {tag}()"}]
    answer = {"status": "done", "summary": f"{tag}() returns 1.", "blocked_reason": None}
    return _entry(tag, "implement", {"actions": actions}, _reply(answer | {"deviations": []}))


def _back_half(tag: str) -> list[dict[str, Any]]:
    lenses = [
        _entry(tag, f"review-{lens}", _reply({"lens": lens, "findings": [], "summary": "fine"}))
        for lens in LENSES
    ]
    accept: dict[str, Any] = {
        "verdict": "pass", "reason": f"{tag}() returns 1 as asked", "missing": [],
        "no_tests_reason_holds": None, "summary": "accepted",
    }  # fmt: skip
    resolved = {"status": "done", "choices": "kept this branch's side", "summary": "resolved"}
    return [
        *lenses,
        _entry(tag, "accept", _reply(accept)),
        _entry(tag, "security", _reply({"findings": [], "summary": "nothing harmful"})),
        _entry(tag, "resolver", {"actions": [{"run": RESOLVE}]}, _reply(resolved)),
    ]


def _triage(tag: str) -> dict[str, Any]:
    answer: dict[str, Any] = {
        "decision": "ready",
        "notes": "New module.",
        "questions": [],
        "reason": None,
    }
    return _entry(tag, "triage", _reply(answer | {"summary": "triage: ready"}))


def tags(count: int) -> tuple[str, ...]:
    """The issues' tags: the first two are the pair that conflict on the shared file."""
    return tuple(f"chaos{n}" for n in range(count))


def conflicting(tag: str) -> bool:
    """Whether the issue is one of the pair that both write the shared file."""
    return tag in tags(2)


def sessions(all_tags: tuple[str, ...]) -> list[dict[str, Any]]:
    """Every scenario entry of the chaos world's issues."""
    out: list[dict[str, Any]] = []
    for tag in all_tags:
        out += [_triage(tag), _spec(tag), _implement(tag, shared=conflicting(tag))]
        out += _back_half(tag)
    return out


def chaos_config() -> dict[str, Any]:
    """Config overrides: the trivial test command, fast polls, limits no kill can reach.

    The harness kills one issue's jobs in one stage at most `max_resumes` times, and the
    other limits are far above what the scripted sessions use, so every stop in a chaos
    run is a false one.
    """
    limits = {
        "claim_wait_seconds": [0, 0], "poll_seconds": 0.5, "ci_poll_seconds": 0.2,
        "issue_token_ceiling": 100_000_000, "rebase_token_budget": 10_000_000,
        "max_syncs": 20, "max_conflict_fixes": 10, "max_jobs": 3,
    }  # fmt: skip
    return {"commands": {"test": TEST, "timeout_seconds": 60}, "limits": limits}
