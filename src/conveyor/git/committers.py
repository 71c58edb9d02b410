"""Who committed the commits a head adds: how a guard tells the pipeline's own pushes."""

from __future__ import annotations

from collections.abc import Sequence

from conveyor.git.refs import try_rev_parse
from conveyor.git.runner import Repo, git_text


def new_committers(repo: Repo, head: str, known: Sequence[str]) -> tuple[str, ...] | None:
    """The committer e-mail of every commit `head` has and none of `known` has, oldest first.

    Known revisions missing here are left out (a head rewritten by a rebase is no longer
    fetched); None when `head` itself is not here, so nothing can be said about it.
    """
    if try_rev_parse(repo, head) is None:
        return None
    present = [sha for rev in known if (sha := try_rev_parse(repo, rev)) is not None]
    out = git_text(repo, "log", "--reverse", "--format=%ce", head, "--not", *present, "--")
    return tuple(line for line in out.splitlines() if line)
