"""Lost commits: a killed job's commits that its leftover checkout holds and the forge lacks.

A commit counts as kept when the forge has it, or has one with the same change (`git
patch-id`: a merge job's unpushed rebase of commits the forge holds), or it changes
nothing. The forge's every commit object counts, reachable or not: a squash-merged
branch is deleted, but what was pushed stays.
"""

from __future__ import annotations

from pathlib import Path

from conveyor.git import GitError, Repo, run_git
from conveyor.git.runner import git_text


def _patch_ids(repo: Repo, shas: list[str]) -> dict[str, str]:
    """commit -> patch id, for the commits that change something."""
    if not shas:
        return {}
    shown = run_git(
        ["show", "--no-color", "--format=commit %H", *shas], cwd=repo.path, env=repo.env
    )
    ids = run_git(["patch-id", "--stable"], cwd=repo.path, env=repo.env, input_bytes=shown.stdout)
    found: dict[str, str] = {}
    for line in ids.stdout.decode().splitlines():
        patch, _, commit = line.partition(" ")
        found[commit] = patch
    return found


def forge_commits(bare: Repo) -> tuple[set[str], set[str]]:
    """Every commit object in the forge's repository, and their patch ids."""
    listed = git_text(
        bare, "cat-file", "--batch-all-objects", "--batch-check=%(objecttype) %(objectname)"
    )
    shas = [name for kind, _, name in (line.partition(" ") for line in listed.splitlines())
            if kind == "commit"]  # fmt: skip
    return set(shas), set(_patch_ids(bare, shas).values())


def lost_commits(home: Path, bare: Repo, base_sha: str) -> list[str]:
    """`<job>: <sha>` for each commit only a leftover job checkout holds."""
    shas, patches = forge_commits(bare)
    lost: list[str] = []
    for checkout in sorted(home.glob("jobs/*/repo")):
        repo = Repo(checkout)
        try:
            mine = git_text(repo, "rev-list", "HEAD", "--not", base_sha, "--").split()
        except GitError:  # a clone cut short by the kill holds nothing
            continue
        unknown = [sha for sha in mine if sha not in shas]
        changed = _patch_ids(repo, unknown)
        lost += [f"{checkout.parent.name}: {c}" for c, p in changed.items() if p not in patches]
    return lost
