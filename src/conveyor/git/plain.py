"""Git run plainly on a tree: changes, blobs and throwaway worktrees (verify's reads).

Git runs with no system or user config and no hooks, and with the git directory named
(`Tree.git_dir`: the job's keep, a worktree's folder in it, a shared setup's own), never
the one it would find in the tree: a tree's `.git` is written by the agent and by every
boxed command, so nothing in the tree or on the machine changes what these commands do.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from conveyor.git.keep import BETWEEN_COMMITS
from conveyor.git.refs import read_branch_commit
from conveyor.git.runner import GitEnv, Repo


class PlainGitError(Exception):
    """A plain git command failed: carries the command and git's stderr."""

    def __init__(self, argv: Sequence[str], returncode: int, stderr: str) -> None:
        self.argv = tuple(argv)
        self.returncode = returncode
        self.stderr = stderr.strip()
        super().__init__(f"`{' '.join(self.argv)}` failed with exit status {returncode}: {stderr}")


@dataclass(frozen=True)
class Tree:
    """A work tree and the git directory git reads it with (never a `.git` inside it)."""

    work: Path
    git_dir: Path

    @classmethod
    def of(cls, work: Path, git_dir: Path | None = None) -> Tree:
        """`work` read through `git_dir`; without one, through its own `.git` (a repository
        no agent or command writes: a test's, the emulator's)."""
        return cls(work, git_dir if git_dir is not None else work / ".git")


def _env(tree: Tree | None) -> dict[str, str]:
    keep = {k: v for k in ("PATH", "HOME", "TMPDIR") if (v := os.environ.get(k)) is not None}
    named = {"GIT_DIR": str(tree.git_dir), "GIT_WORK_TREE": str(tree.work)} if tree else {}
    return (
        keep
        | named
        | {
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,
            "XDG_CONFIG_HOME": os.devnull,
            "GIT_TERMINAL_PROMPT": "0",
            "LC_ALL": "C",
        }
    )


def git(
    tree: Tree, *args: str, ok_codes: Sequence[int] = (0,), stdin: bytes | None = None
) -> bytes:
    """Run `git ARGS` on `tree` (hooks off) and return stdout; PlainGitError otherwise."""
    return git_in(tree.work, *args, ok_codes=ok_codes, stdin=stdin, tree=tree)


def git_in(
    cwd: Path,
    *args: str,
    ok_codes: Sequence[int] = (0,),
    stdin: bytes | None = None,
    tree: Tree | None = None,
) -> bytes:
    """Run `git ARGS` in `cwd`, on `tree` when given, else in no repository (a clone)."""
    argv = ["git", "-c", f"core.hooksPath={os.devnull}", *args]
    try:
        done = subprocess.run(
            argv, cwd=cwd, env=_env(tree), input=stdin, capture_output=True, check=False
        )
    except OSError as exc:
        raise PlainGitError(argv, -1, str(exc)) from exc
    if done.returncode not in ok_codes:
        raise PlainGitError(argv, done.returncode, done.stderr.decode(errors="replace"))
    return done.stdout


@dataclass(frozen=True)
class Change:
    """One changed path between two commits: `A`dded, `D`eleted, `M`odified or `T`ype change."""

    status: str
    path: str


def head(checkout: Tree) -> str:
    """The commit the tree's HEAD is at (read from its ref files when git's are plain)."""
    read = read_branch_commit(Repo(checkout.work, GitEnv(git_dir=checkout.git_dir)), "HEAD")
    return read or git(checkout, "rev-parse", "--verify", "HEAD^{commit}").decode().strip()


def merge_base(checkout: Tree, a: str, b: str) -> str:
    """The best common ancestor of `a` and `b`."""
    return git(checkout, "merge-base", a, b).decode().strip()


def changes(checkout: Tree, base: str, tip: str) -> tuple[Change, ...]:
    """What changed from `base` to `tip`, path by path (renames as delete + add; a submodule
    whose gitlink moved is a change)."""
    out = git(
        checkout, "diff", BETWEEN_COMMITS, "--name-status", "--no-renames", "-z", base, tip, "--"
    )
    fields = [f.decode("utf-8", errors="surrogateescape") for f in out.split(b"\0") if f]
    return tuple(Change(fields[i][0], fields[i + 1]) for i in range(0, len(fields) - 1, 2))


def blob(checkout: Tree, sha: str, path: str) -> bytes | None:
    """The content of `path` at commit `sha`, or None when no file is there (the path is
    missing, a folder, or a submodule).

    One `cat-file --batch` (it answers "missing" for a path the commit lacks). What a full
    commit SHA holds never changes, so those answers are kept for the process's life.
    """
    if _FULL_SHA.fullmatch(sha):
        return _blob_at_commit(checkout, sha, path)
    return _read_blob(checkout, sha, path)


_FULL_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


@functools.lru_cache(maxsize=256)
def _blob_at_commit(checkout: Tree, sha: str, path: str) -> bytes | None:
    return _read_blob(checkout, sha, path)


def _read_blob(checkout: Tree, sha: str, path: str) -> bytes | None:
    """`sha` must name a commit (PlainGitError if not); then `path` in it, or None when no file
    is there (nothing, a folder, a submodule: its gitlink names a commit)."""
    if "\n" in path:  # --batch reads one name per line: such a path is read in two steps
        listed = git(checkout, "ls-tree", "--full-tree", "-z", sha, "--", path)
        if b" blob " not in listed.split(b"\t", 1)[0]:
            return None
        return git(checkout, "cat-file", "blob", f"{sha}:{path}")
    names = (f"{sha}^{{commit}}", f"{sha}:{path}")
    out = git(checkout, "cat-file", "--batch", stdin="".join(f"{n}\n" for n in names).encode())
    (commit_kind, _), (kind, content) = _batch_answers(out, names)
    if commit_kind != b"commit":
        raise PlainGitError(["git", "cat-file", "--batch", names[0]], 128, f"{sha}: no commit")
    return content if kind == b"blob" else None  # missing, a folder, a submodule's gitlink


def _batch_answers(out: bytes, names: Sequence[str]) -> list[tuple[bytes, bytes]]:
    """`cat-file --batch`'s answer to each name: (object type or b"missing", content)."""
    answers: list[tuple[bytes, bytes]] = []
    at = 0
    for name in names:
        end = out.index(b"\n", at)
        header = out[at:end]
        at = end + 1
        if header.endswith(b" missing") and header[: -len(b" missing")] == name.encode():
            answers.append((b"missing", b""))
            continue
        fields = header.split(b" ")
        if len(fields) != 3 or not fields[2].isdigit():  # e.g. "<name> ambiguous"
            what = header.decode(errors="replace")
            raise PlainGitError(["git", "cat-file", "--batch", name], 128, what)
        kind, size = fields[1], int(fields[2])
        answers.append((kind, out[at : at + size]))
        at += size + 1  # the content, then a newline
    return answers


def add_worktree(checkout: Tree, where: Path, sha: str) -> Tree:
    """A detached worktree of the checkout's repository at `sha`, in `where`; its git folder
    lies in the checkout's git directory, named by the `.git` file git just wrote there
    (read now, before any command runs in it)."""
    git(checkout, "worktree", "add", "--detach", "--force", str(where), sha)
    pointer = (where / ".git").read_text(encoding="utf-8").strip()
    return Tree(where, Path(pointer.removeprefix("gitdir:").strip()))


def remove_worktree(checkout: Tree, where: Path) -> None:
    """Remove the worktree at `where` and every trace of it, even half-made."""
    try:
        git(checkout, "worktree", "remove", "--force", "--force", str(where))
    except PlainGitError:  # half-made or half-gone: clear what is left by hand, then git's record
        shutil.rmtree(where, ignore_errors=True)
        git(checkout, "worktree", "prune", ok_codes=(0, 128))


def restore(tree: Tree, sha: str, paths: Sequence[str]) -> None:
    """Put `paths` in the work tree `tree` back to their content at `sha`."""
    if paths:
        git(tree, "checkout", sha, "--", *paths)
