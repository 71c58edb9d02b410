"""Running a repository's CI command in a temporary checkout: minimal env, own process group."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from conveyor.emulator.hooks.ci_box import CiBox
from conveyor.emulator.model.ci_network import NONE
from conveyor.git import GitError, Repo, checkout_detached
from conveyor.git.runner import git_text
from conveyor.sandbox import Box
from conveyor.sandbox.registry_config import registry_vars
from conveyor.sandbox.toolchains import manager_roots, root_variables

LOG_TAIL_CHARS = 60_000
TIMEOUT_S = 1800.0
_POLL_S = 0.05


@dataclass(frozen=True)
class CiOutcome:
    """How a CI run ended: its conclusion and the tail of its log."""

    conclusion: str
    log_tail: str


def ci_environment(home: Path, network: str = NONE) -> dict[str, str]:
    """The command's whole environment: a PATH, a throwaway HOME, `CI=true`, the version
    managers' root variables (the HOME is not the owner's), and with a network the
    registries the owner's tools are set up for; no tokens."""
    registries = registry_vars(os.environ) if network != NONE else {}
    return (
        root_variables(manager_roots(os.environ))
        | registries
        | {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(home),
            "TMPDIR": str(home),
            "LANG": "C.UTF-8",
            "CI": "true",
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,
        }
    )


def tail(text: str, limit: int = LOG_TAIL_CHARS) -> str:
    """The last `limit` characters of `text`, marked when something was cut."""
    if len(text) <= limit:
        return text
    marker = "[... earlier output cut ...]\n"
    return marker + text[len(text) - limit + len(marker) :]


def run_ci(
    bare: Repo,
    sha: str,
    command: str,
    stop: threading.Event,
    timeout_s: float = TIMEOUT_S,
    *,
    box: Box | None = None,
    hidden: tuple[Path, ...] = (),
    network: str = NONE,
) -> CiOutcome:
    """Check out `sha` and run `command` with `sh -c`; `stop` kills it (whole process group).

    It runs in `box` (None: unconfined) with `hidden` (the forge's data, the owner's
    home) not there, reaching what `network` allows (`model/ci_network.py`). A head
    commit asking to skip CI (`[skip ci]` and its variants in the message, or a
    `skip-checks: true` trailer, as GitHub reads them) is not run: `skipped`.
    """
    if skips_ci(bare, sha):
        return CiOutcome("skipped", "The head commit asks to skip CI.")
    with tempfile.TemporaryDirectory(prefix="conveyor-ci-") as tmp:
        root = Path(tmp)
        home = root / "home"
        home.mkdir()
        log_path = root / "log.txt"
        try:
            checkout = checkout_detached(bare, sha, root / "repo")
        except GitError as exc:
            return CiOutcome("failure", tail(f"checkout of {sha} failed: {exc}\n"))
        with CiBox(
            box, root=root, checkout=checkout.path, hidden=hidden, command=command, network=network
        ) as boxed:
            with log_path.open("wb") as log:
                proc = subprocess.Popen(
                    boxed.argv,
                    cwd=checkout.path,
                    env=ci_environment(home, network),
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
                verdict = _wait(proc, stop, timeout_s)
                _signal_group(proc.pid, signal.SIGKILL)  # children it left behind
            text = log_path.read_bytes().decode(errors="replace") + boxed.blocked_note()
        if verdict is not None:
            return CiOutcome(verdict, tail(f"{text}\n[{verdict}]\n"))
        conclusion = "success" if proc.returncode == 0 else "failure"
        if conclusion == "failure":
            text += f"\n[exit status {proc.returncode}]\n"
        return CiOutcome(conclusion, tail(text))


SKIP_MARKS = ("[skip ci]", "[ci skip]", "[no ci]", "[skip actions]", "[actions skip]")
_SKIP_TRAILER = re.compile(r"^skip-checks:\s*true\s*$", re.IGNORECASE | re.MULTILINE)


def skips_ci(bare: Repo, sha: str) -> bool:
    """Whether commit `sha`'s message asks to skip CI (GitHub's markers and trailer)."""
    try:
        message = git_text(bare, "log", "-1", "--format=%B", sha)
    except GitError:
        return False
    lowered = message.lower()
    return any(mark in lowered for mark in SKIP_MARKS) or bool(_SKIP_TRAILER.search(message))


def _wait(proc: subprocess.Popen[bytes], stop: threading.Event, timeout_s: float) -> str | None:
    """Wait for the command; None when it exited, else the conclusion after killing it."""
    waited = 0.0
    while True:
        try:
            proc.wait(timeout=_POLL_S)
        except subprocess.TimeoutExpired:
            waited += _POLL_S
            if stop.is_set() or waited >= timeout_s:
                kill_group(proc)
                return "cancelled" if stop.is_set() else "timed_out"
        else:
            return None


def kill_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM the command's process group, then SIGKILL whatever is left of it."""
    _signal_group(proc.pid, signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=1.0)
    _signal_group(proc.pid, signal.SIGKILL)
    proc.wait()


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError):  # the group is already gone
        os.killpg(pgid, sig)
