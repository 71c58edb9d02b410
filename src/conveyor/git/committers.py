"""Who committed the commits a head adds: how a guard tells the pipeline's own pushes."""

from __future__ import annotations

from collections.abc import Sequence

from conveyor.git.keep import BETWEEN_COMMITS
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


def untrailed_commits(
    repo: Repo, head: str, known: Sequence[str], key: str, values: frozenset[str]
) -> tuple[tuple[str, str], ...]:
    """The commits `head` has and none of `known` has whose `key:` trailer names none of
    `values`, oldest first, as (sha, subject); an empty commit (not a merge, and changing no
    file) is left out, since it holds no one's work."""
    present = [sha for rev in known if (sha := try_rev_parse(repo, rev)) is not None]
    fmt = f"--format=%H%x1f%P%x1f%s%x1f%(trailers:key={key},valueonly,separator=%x1e)"
    out = git_text(repo, "log", "--reverse", fmt, head, "--not", *present, "--")
    found: list[tuple[str, str]] = []
    for line in out.splitlines():
        sha, parents, subject, trailers = [*line.split("\x1f"), "", "", ""][:4]
        if {v.strip() for v in trailers.split("\x1e")} & values:
            continue
        merge = len(parents.split()) > 1
        if not merge and not _changes(repo, sha):
            continue
        found.append((sha, subject))
    return tuple(found)


def _changes(repo: Repo, sha: str) -> bool:
    names = ("--no-commit-id", "--name-only", "-r", "--root", sha)
    return bool(git_text(repo, "diff-tree", BETWEEN_COMMITS, *names))
