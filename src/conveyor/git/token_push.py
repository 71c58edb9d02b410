"""The push op's git side: the only code that hands a forge token to `git push`.

The token goes to the `git push` subprocess alone, through `GIT_ASKPASS` (a
script that prints a variable of that one process), never into a config file,
a URL or an argument. `PUSH_OP_VAR` tells the checkout's pre-push hook that
the push comes from here; any other push is refused.
"""

from __future__ import annotations

import stat
from dataclasses import dataclass
from pathlib import Path

from conveyor.git.runner import GitEnv, GitError, Repo, run_git

PUSH_OP_VAR = "CONVEYOR_PUSH_OP"
TOKEN_VAR = "CONVEYOR_PUSH_TOKEN"  # noqa: S105 - the variable's name, not a secret
ASKPASS = """#!/bin/sh
# Conveyor's push op: answers git's credential prompts from this process's environment.
case "$1" in
  Username*) printf '%s\\n' x-access-token ;;
  *) printf '%s\\n' "$CONVEYOR_PUSH_TOKEN" ;;
esac
"""


@dataclass(frozen=True)
class PushResult:
    """What one push did: the remote ref and the SHA it now holds (None: deleted)."""

    ok: bool
    ref: str
    sha: str | None
    error: str = ""


@dataclass(frozen=True)
class PushAuth:
    """How the push op authenticates: the askpass script, the token, the hook's nonce."""

    askpass: Path
    token: str | None
    nonce: str

    def variables(self) -> dict[str, str]:
        """The variables of the `git push` subprocess alone."""
        return {PUSH_OP_VAR: self.nonce} | self.fetch_variables()

    def fetch_variables(self) -> dict[str, str]:
        """The variables of a job-side fetch from the forge (a private repository needs them)."""
        env = {"GIT_ASKPASS": str(self.askpass)}
        if self.token:
            env[TOKEN_VAR] = self.token
        return env


def write_askpass(path: Path) -> Path:
    """Write the askpass script (it holds no secret) and make it executable."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(ASKPASS)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def push_ref(
    repo: Repo,
    remote: str,
    src: str | None,
    dst: str,
    auth: PushAuth,
    *,
    lease: str | None = None,
    force: bool = False,
) -> PushResult:
    """Push `src` (a revision; None deletes) to the full ref `dst` on `remote`.

    `lease` is the SHA the remote ref must still hold (`""`: must not exist);
    without it and without `force` only a fast-forward is accepted.
    """
    args = ["push", "--quiet", "--porcelain"]
    if lease is not None:
        args.append(f"--force-with-lease={dst}:{lease}")
    elif force:
        args.append("--force")
    sha: str | None = None
    if src is not None:
        done = run_git(["rev-parse", "--verify", f"{src}^{{commit}}"], cwd=repo.path, env=repo.env)
        sha = done.stdout.decode().strip()
    refspec = f"{sha}:{dst}" if sha is not None else f":{dst}"
    env = GitEnv(repo.env.config_global, repo.env.identity, repo.env.date, repo.env.extra)
    try:
        run_git([*args, remote, refspec], cwd=repo.path, env=env, extra_env=auth.variables())
    except GitError as exc:
        return PushResult(ok=False, ref=dst, sha=sha, error=_redacted(exc.stderr, auth.token))
    return PushResult(ok=True, ref=dst, sha=sha)


def _redacted(text: str, token: str | None) -> str:
    return text.replace(token, "***") if token else text
