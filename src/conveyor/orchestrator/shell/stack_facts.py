"""The tick's answer to STK-9: does a prerequisite's branch hold the merges of the other issues
its follower waits on? Read from the repository's bare cache, which the jobs keep fetched.

A read that fails (the cache is missing, or lacks a commit) counts as not behind.
The merge commit of each merged issue is asked of the forge once per ten minutes.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from conveyor.core.stacking import prereq_branch
from conveyor.forge.errors import ForgeError
from conveyor.forge.protocol import Forge
from conveyor.git import GitError, Repo, is_ancestor, try_rev_parse
from conveyor.orchestrator.shell.snapshot_store import SnapshotStore
from conveyor.orchestrator.snapshot import IssueView
from conveyor.orchestrator.stacking import BehindQuestion, StackFacts, behind_questions

MERGE_KEY = "merge-commit:{}"
NONE = "-"


def _merge_commit(forge: Forge, store: SnapshotStore, number: int, now: datetime) -> str | None:
    """The squash commit issue `number`'s PR merged as (None: it has none)."""
    key = MERGE_KEY.format(number)
    known = store.answer(key, now)
    if known is None:
        try:
            pr = forge.find_pr(prereq_branch(number))
        except ForgeError:
            return None
        known = pr.merge_commit_sha if pr is not None and pr.merge_commit_sha else NONE
        store.put_answer(key, known, now)
    return None if known == NONE else known


def _holds(repo: Repo, head: str, merge: str) -> bool:
    """Whether `head` holds `merge`; a failed read says yes (not behind)."""
    try:
        if try_rev_parse(repo, f"{head}^{{commit}}") is None:
            return True
        if try_rev_parse(repo, f"{merge}^{{commit}}") is None:
            return True
        return is_ancestor(repo, merge, head)
    except GitError:
        return True


def _behind(question: BehindQuestion, repo: Repo, merges: dict[int, str | None]) -> bool:
    return any(
        sha is not None and not _holds(repo, question.head, sha)
        for sha in (merges[n] for n in question.merged)
    )


def stack_behind(
    forge: Forge,
    store: SnapshotStore,
    cache: Path,
    issues: Sequence[IssueView],
    *,
    closed_unmerged: frozenset[int],
    now: datetime,
) -> frozenset[int]:
    """The followers to hold `stacked-on-behind:#P` this tick (usually none: nothing is read)."""
    facts = StackFacts({issue.number: issue for issue in issues}, closed_unmerged)
    questions = behind_questions(issues, facts)
    if not questions or not (cache / "HEAD").is_file():
        return frozenset()
    repo = Repo(cache)
    wanted = sorted({n for q in questions for n in q.merged})
    merges = {n: _merge_commit(forge, store, n, now) for n in wanted}
    return frozenset(q.issue for q in questions if _behind(q, repo, merges))
