"""Running the `git` CLI with a controlled environment, and the error it raises."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol

# Inherited variables worth keeping; everything else (notably every GIT_* a hook
# or a caller's shell sets, like GIT_DIR or GIT_INDEX_FILE) is dropped.
_KEPT = ("PATH", "HOME", "TMPDIR", "LANG", "SYSTEMROOT")


class GitError(Exception):
    """A git command failed: carries the command, its exit status and git's stderr."""

    def __init__(self, argv: Sequence[str], returncode: int, stderr: str) -> None:
        self.argv = tuple(argv)
        self.returncode = returncode
        self.stderr = stderr.strip()
        super().__init__(
            f"`{' '.join(self.argv)}` failed with exit status {returncode}: "
            f"{self.stderr or '(no output on stderr)'}"
        )


@dataclass(frozen=True)
class Identity:
    """Who authors and commits: fixed, so the machine's config never decides it."""

    name: str = "Conveyor"
    email: str = "conveyor@localhost"


@dataclass(frozen=True)
class GitEnv:
    """The environment every git command runs with.

    `config_global` is the global config file git reads (None: `/dev/null`, so
    nothing from the machine's user leaks in); the system config is never read.
    `date` fixes author and committer dates (e.g. `"1700000000 +0000"`).
    `extra` adds variables (a credential helper for `push`, for instance).
    `git_dir` is the git directory git works in (`GIT_DIR`, with the command's folder as
    its work tree) instead of the one it would find there: a job's keep, whose config,
    hooks and refs no box can write (`git/keep.py`).
    """

    config_global: Path | None = None
    identity: Identity = Identity()
    date: str | None = None
    extra: Mapping[str, str] = field(default_factory=dict)
    git_dir: Path | None = None

    def variables(self) -> dict[str, str]:
        """The complete environment for a git subprocess."""
        env = {k: v for k in _KEPT if (v := os.environ.get(k)) is not None}
        env.update(
            GIT_CONFIG_NOSYSTEM="1",
            GIT_CONFIG_GLOBAL=str(self.config_global or os.devnull),
            # The user's global ignore and attributes files live here; point it nowhere.
            XDG_CONFIG_HOME=os.devnull,
            GIT_TERMINAL_PROMPT="0",
            LC_ALL="C",
            GIT_AUTHOR_NAME=self.identity.name,
            GIT_AUTHOR_EMAIL=self.identity.email,
            GIT_COMMITTER_NAME=self.identity.name,
            GIT_COMMITTER_EMAIL=self.identity.email,
        )
        if self.date is not None:
            env.update(GIT_AUTHOR_DATE=self.date, GIT_COMMITTER_DATE=self.date)
        env.update(self.extra)
        return env


class Boxer(Protocol):
    """Turns an argv into the one that runs it in the job's box, in `cwd` (writable there),
    reading `readable` too; the argv itself where the job runs unboxed."""

    def __call__(self, argv: list[str], *, cwd: Path, readable: tuple[Path, ...]) -> list[str]:
        """The boxed argv."""
        ...


@dataclass(frozen=True)
class Repo:
    """A repository on disk (a bare git dir or a work tree) and how to run git in it.

    A job's checkout is its work tree with `env.git_dir` its keep; `box` then runs the git
    that must work in the agent's own repository (the checkout's `.git`) in the job's box.
    """

    path: Path
    env: GitEnv = GitEnv()
    box: Boxer | None = field(default=None, compare=False)

    def with_identity(self, identity: Identity, date: str | None = None) -> Repo:
        """The same repository, committing as `identity` (and at `date` when given)."""
        env = replace(self.env, identity=identity, date=date or self.env.date)
        return replace(self, env=env)

    @property
    def git_dir(self) -> Path:
        """The git directory Conveyor reads: the keep, else `.git` (or the bare repository)."""
        if self.env.git_dir is not None:
            return self.env.git_dir
        dot_git = self.path / ".git"
        return dot_git if dot_git.is_dir() else self.path


def run_git(
    args: Sequence[str],
    *,
    cwd: Path,
    env: GitEnv,
    input_bytes: bytes | None = None,
    ok_codes: Sequence[int] = (0,),
    extra_env: Mapping[str, str] | None = None,
    timeout: float | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """Run `git ARGS` in `cwd`; raise GitError unless its exit status is in `ok_codes`.

    With `env.git_dir`, git works in that directory with `cwd` as its work tree.
    """
    argv = ["git", *args]
    variables = env.variables()
    if env.git_dir is not None:
        variables.update(GIT_DIR=str(env.git_dir), GIT_WORK_TREE=str(cwd))
    if extra_env:
        variables.update(extra_env)
    try:
        done = subprocess.run(
            argv,
            cwd=cwd,
            env=variables,
            input=input_bytes,
            capture_output=True,
            check=False,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired as exc:
        raise GitError(argv, -1, f"no answer within {timeout:g} s") from exc
    except (OSError, ValueError) as exc:  # git missing, cwd gone, or a NUL in an argument
        raise GitError(argv, -1, str(exc)) from exc
    if done.returncode not in ok_codes:
        raise GitError(argv, done.returncode, done.stderr.decode(errors="replace"))
    return done


def git_text(repo: Repo, *args: str, input_text: str | None = None) -> str:
    """Run git in `repo` and return its stdout as text with the trailing newline removed."""
    data = None if input_text is None else input_text.encode()
    done = run_git(args, cwd=repo.path, env=repo.env, input_bytes=data)
    return done.stdout.decode(errors="replace").rstrip("\n")
