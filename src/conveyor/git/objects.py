"""Reading and writing objects: trees, blobs, commits and the log between two revisions."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from conveyor.git.runner import Repo, git_text, run_git


@dataclass(frozen=True)
class TreeEntry:
    """One file of a tree: its mode, type, object id and path."""

    mode: str
    kind: str
    sha: str
    path: str


@dataclass(frozen=True)
class CommitInfo:
    """A commit's id and the first line of its message."""

    sha: str
    subject: str


def read_tree(repo: Repo, rev: str) -> tuple[TreeEntry, ...]:
    """Every file (recursively) in the tree of `rev`, sorted by path."""
    done = run_git(["ls-tree", "-r", "-z", rev], cwd=repo.path, env=repo.env)
    entries = []
    for record in done.stdout.decode(errors="surrogateescape").split("\0"):
        if not record:
            continue
        meta, _, path = record.partition("\t")
        mode, kind, sha = meta.split(" ")
        entries.append(TreeEntry(mode, kind, sha, path))
    return tuple(entries)


def read_blob(repo: Repo, rev: str, path: str) -> bytes:
    """The content of `path` at `rev`."""
    return run_git(["cat-file", "blob", f"{rev}:{path}"], cwd=repo.path, env=repo.env).stdout


def tree_of(repo: Repo, rev: str) -> str:
    """The id of the tree of commit `rev`."""
    return git_text(repo, "rev-parse", "--verify", f"{rev}^{{tree}}")


def commit_tree(repo: Repo, tree: str, parents: Sequence[str], message: str) -> str:
    """Write a commit of `tree` with `parents` and `message` (repo's identity); its SHA."""
    args = ["commit-tree", tree]
    for parent in parents:
        args += ["-p", parent]
    return git_text(repo, *args, input_text=message)


def log_commits(repo: Repo, since: str | None, until: str) -> tuple[CommitInfo, ...]:
    """The commits reachable from `until` but not from `since`, oldest first."""
    span = until if since is None else f"{since}..{until}"
    done = run_git(
        ["log", "--reverse", "-z", "--format=%H %s", span, "--"], cwd=repo.path, env=repo.env
    )
    commits = []
    for record in done.stdout.decode(errors="replace").split("\0"):
        if record:
            sha, _, subject = record.partition(" ")
            commits.append(CommitInfo(sha, subject))
    return tuple(commits)


@dataclass(frozen=True)
class DiffStat:
    """How much changes between two trees: files, added and deleted lines (binary: 0 lines)."""

    files: int
    additions: int
    deletions: int


def diff_stat(repo: Repo, old: str, new: str) -> DiffStat:
    """The size of the change from `old` to `new`."""
    out = git_text(repo, "diff", "--numstat", "--no-renames", old, new, "--")
    files = additions = deletions = 0
    for line in out.splitlines():
        added, deleted, _ = line.split("\t", 2)
        files += 1
        additions += int(added) if added.isdigit() else 0
        deletions += int(deleted) if deleted.isdigit() else 0
    return DiffStat(files, additions, deletions)


def count_commits(repo: Repo, since: str, until: str) -> int:
    """How many commits are reachable from `until` but not from `since`."""
    return int(git_text(repo, "rev-list", "--count", f"{since}..{until}", "--"))


@dataclass(frozen=True)
class CommitDetails:
    """A commit's ids, people (name, email, ISO 8601 date) and message."""

    sha: str
    tree: str
    parents: tuple[str, ...]
    author: tuple[str, str, str]
    committer: tuple[str, str, str]
    message: str


def commit_details(repo: Repo, rev: str) -> CommitDetails:
    """Everything about commit `rev` that a forge shows."""
    fmt = "%H%x00%T%x00%P%x00%an%x00%ae%x00%aI%x00%cn%x00%ce%x00%cI%x00%B"
    out = git_text(repo, "log", "-1", f"--format={fmt}", rev, "--")
    sha, tree, parents, an, ae, ad, cn, ce, cd, message = out.split("\0", 9)
    return CommitDetails(
        sha, tree, tuple(parents.split()), (an, ae, ad), (cn, ce, cd), message.rstrip("\n")
    )


def commit_message(repo: Repo, rev: str) -> str:
    """The full message of commit `rev`."""
    return git_text(repo, "log", "-1", "--format=%B", rev, "--")


def write_tree_from_dir(repo: Repo, src: Path, index_file: Path) -> str:
    """Write the files under `src` (honouring its .gitignore) as a tree in bare `repo`; its id.

    Uses a private index file, so neither `repo` nor `src` is changed.
    """
    extra = {
        "GIT_DIR": str(repo.path.absolute()),
        "GIT_INDEX_FILE": str(index_file.absolute()),
        "GIT_WORK_TREE": str(src.absolute()),
    }
    run_git(["add", "--all", "."], cwd=src, env=repo.env, extra_env=extra)
    done = run_git(["write-tree"], cwd=src, env=repo.env, extra_env=extra)
    return done.stdout.decode().strip()


@dataclass(frozen=True)
class Patch:
    """A change as people read it: the unified diff's text (at most the limit), and if cut."""

    text: str
    cut: bool


def patch_between(repo: Repo, base: str, head: str, *, limit: int = 200_000) -> Patch:
    """`git diff base...head`: what `head` changes since it left `base` (renames found)."""
    done = run_git(
        ["diff", "--no-color", "--no-ext-diff", "--find-renames", f"{base}...{head}", "--"],
        cwd=repo.path,
        env=repo.env,
    )
    raw = done.stdout
    return Patch(raw[:limit].decode(errors="replace"), len(raw) > limit)
