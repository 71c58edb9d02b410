"""The push op's git side: the only code that hands a forge token to `git push`.

The token goes to the `git push` subprocess alone, through `GIT_ASKPASS` (a
script that prints a variable of that one process), never into a config file,
a URL or an argument; and the script answers only when git asks for the forge's own
scheme and host (`ORIGINS_VAR`), whatever URL the push was sent to. The push runs in
the job's keep, to the URL the job names (the configured forge's), so neither the
URL nor a hook comes from a tree an agent writes. `PUSH_OP_VAR` tells the agent's
own pre-push hook that a push comes from here; the agent's pushes are refused.
"""

from __future__ import annotations

import stat
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from conveyor.git.runner import GitError, Repo, run_git

PUSH_OP_VAR = "CONVEYOR_PUSH_OP"
TOKEN_VAR = "CONVEYOR_PUSH_TOKEN"  # noqa: S105 - the variable's name, not a secret
ORIGINS_VAR = "CONVEYOR_PUSH_ORIGINS"
# git asks "Username for 'https://host': " and "Password for 'https://user@host': ".
ASKPASS = """#!/bin/sh
# Conveyor's push op: answers git's credential prompts from this process's environment,
# only for the forge's own scheme and host (CONVEYOR_PUSH_ORIGINS), never for another.
url=${1#*\\'}
url=${url%\\'*}
scheme=${url%%://*}
rest=${url#*://}
host=${rest%%/*}
host=${host##*@}
asked=$(printf '%s://%s' "$scheme" "$host" | tr '[:upper:]' '[:lower:]')
for origin in $CONVEYOR_PUSH_ORIGINS; do
  if [ "$asked" = "$origin" ]; then
    case "$1" in
      Username*) printf '%s\\n' x-access-token ;;
      *) printf '%s\\n' "$CONVEYOR_PUSH_TOKEN" ;;
    esac
    exit 0
  fi
done
echo "conveyor: no credentials for $scheme://$host" >&2
exit 1
"""


def origin_of(url: str) -> str | None:
    """The `scheme://host[:port]` of an http(s) URL (lower case), the only thing askpass
    answers for; None for any other URL (a path, `file://`, ssh)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    host = parts.hostname.lower()
    host = f"[{host}]" if ":" in host else host
    port = f":{parts.port}" if parts.port is not None else ""
    return f"{parts.scheme}://{host}{port}"


@dataclass(frozen=True)
class PushResult:
    """What one push did: the remote ref and the SHA it now holds (None: deleted)."""

    ok: bool
    ref: str
    sha: str | None
    error: str = ""


@dataclass(frozen=True)
class PushAuth:
    """How the push op authenticates: the askpass script, the token, the hook's nonce, and
    the forge's `scheme://host[:port]` (`origin_of` its URLs) askpass answers for alone."""

    askpass: Path
    token: str | None
    nonce: str
    origins: tuple[str, ...] = ()

    def variables(self) -> dict[str, str]:
        """The variables of the `git push` subprocess alone."""
        return {PUSH_OP_VAR: self.nonce} | self.fetch_variables()

    def fetch_variables(self) -> dict[str, str]:
        """The variables of a job-side fetch from the forge (a private repository needs them)."""
        env = {"GIT_ASKPASS": str(self.askpass), ORIGINS_VAR: " ".join(self.origins)}
        if self.token:
            env[TOKEN_VAR] = self.token
        return env

    def for_urls(self, *urls: str) -> PushAuth:
        """The same credentials, answering for the origins of `urls` too."""
        more = (o for url in urls if (o := origin_of(url)) is not None)
        return PushAuth(
            self.askpass, self.token, self.nonce, tuple(dict.fromkeys((*self.origins, *more)))
        )


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
    try:
        run_git([*args, remote, refspec], cwd=repo.path, env=repo.env, extra_env=auth.variables())
    except GitError as exc:
        return PushResult(ok=False, ref=dst, sha=sha, error=_redacted(exc.stderr, auth.token))
    return PushResult(ok=True, ref=dst, sha=sha)


def _redacted(text: str, token: str | None) -> str:
    return text.replace(token, "***") if token else text
