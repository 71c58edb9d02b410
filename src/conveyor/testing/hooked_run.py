"""`conveyor run` with webhooks on a World, its forge hook pointing at it: for tests and bench.

`HookedRun.start` starts the loop with `--webhook-port 0` (or without webhooks),
reads the port it listens on from its log, and, as the repository's owner, creates
the hook that delivers issue, comment, PR, review, check and status events there. Scenario
entries are triage sessions only: the config caps spec jobs at 0, so an issue
goes no further than triage. `answer_starts_triage` measures the time from a
trusted answer on a needs-info issue to its triage job's directory appearing.
"""

from __future__ import annotations

import re
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from conveyor.forge.github import token_forge
from conveyor.testing.forked_run import Process
from conveyor.testing.world import TRUSTED, World

SECRET_ENV = "CONVEYOR_WEBHOOK_SECRET"  # noqa: S105 - the variable's name
SECRET = "webhook-secret-of-the-test-world"  # noqa: S105 - a test world's own secret
_LISTENING = re.compile(r"webhooks: listening on 127\.0\.0\.1:(\d+)")
EVENTS = [
    "issues", "issue_comment", "pull_request", "pull_request_review",
    "pull_request_review_comment", "check_run", "status",
]  # fmt: skip


def run_config(poll_seconds: float, max_jobs: int = 2) -> dict[str, Any]:
    """Config overrides: a trivial test command, the poll, and no job past triage."""
    return {
        "commands": {"test": "true", "timeout_seconds": 60},
        "limits": {
            "claim_wait_seconds": [0, 0],
            "poll_seconds": poll_seconds,
            "max_jobs": max_jobs,
            "stage_caps": {"spec": 0, "review": 0},
        },
    }


def triage_entry(tag: str, decision: str) -> dict[str, Any]:
    """A triage session replying `decision` (needs-info asks one question)."""
    questions = ["Should reserved items count?"] if decision == "needs-info" else []
    answer = {
        "decision": decision, "notes": "New module.", "questions": questions,
        "reason": None, "summary": f"triage: {decision}",
    }  # fmt: skip
    return {"tag": tag, "kind": "triage", "turns": [{"actions": [{"reply": answer}]}]}


def wait_for(
    what: str, check: Callable[[], bool], timeout: float = 60.0, every: float = 0.005
) -> None:
    """Poll `check` every `every` seconds until it holds; AssertionError naming `what` after
    `timeout`. The 5 ms default suits checks that read a file and times the webhook bench
    measures; a check that asks the forge polls less often (each is a request)."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            msg = f"timed out waiting for {what}"
            raise AssertionError(msg)
        time.sleep(every)


class HookedRun:
    """One `conveyor run` on `world`; with `webhooks`, its receiver (and, with `hook`, the
    forge's hook delivering to it)."""

    def __init__(self, world: World, *, webhooks: bool = True, hook: bool = True) -> None:
        self.world = world
        self.webhooks = webhooks
        self.hook = hook
        self.decisions: dict[str, str] = {}
        self.process: Process | None = None
        self.port: int | None = None

    @property
    def log(self) -> Path:
        """The orchestrator's log."""
        return self.world.repo_home / "orchestrator.log"

    def log_lines(self) -> list[str]:
        """The log's lines so far."""
        return self.log.read_text().splitlines() if self.log.exists() else []

    def start(self) -> HookedRun:
        """Start the loop (and hook the forge to it); return once it listens."""
        return self.launch().ready()

    def launch(self) -> HookedRun:
        """Start the loop's process, not waiting for it."""
        args = ["run"]
        if self.webhooks:
            self.world.extra_env[SECRET_ENV] = SECRET
            args += ["--webhook-port", "0", "--webhook-secret-env", SECRET_ENV]
        self.process = self.world.start(*args)
        return self

    def ready(self) -> HookedRun:
        """Wait until the launched loop runs (and listens, and the forge's hook points at it)."""
        wait_for("the loop's first line", lambda: bool(self.log_lines()))
        if self.webhooks:
            wait_for("the receiver", lambda: self._port() is not None)
            self.port = self._port()
            if self.hook:
                self._hook()
        return self

    def _port(self) -> int | None:
        for line in self.log_lines():
            found = _LISTENING.search(line)
            if found:
                return int(found[1])
        return None

    def _hook(self) -> None:
        owner = self.world.repo.split("/")[0]
        token = self.world.server.add_user(owner)
        with token_forge(self.world.repo, token, base_url=self.world.server.url) as admin:
            config: Any = {
                "url": f"http://127.0.0.1:{self.port}/",
                "content_type": "json",
                "secret": SECRET,
            }
            admin.kit.rest.repos.create_webhook(
                owner, self.world.repo.split("/")[1], config=config, events=EVENTS
            )

    def decide(self, tag: str, decision: str) -> None:
        """From now on triage of `tag` replies `decision`."""
        self.decisions[tag] = decision
        self.world.write_scenario([triage_entry(t, d) for t, d in self.decisions.items()])

    def triage_jobs(self, number: int) -> int:
        """How many triage jobs have started on issue `number`."""
        return len(list((self.world.repo_home / "jobs").glob(f"issue-{number}-triage-*")))

    def needs_info(self, tag: str) -> int:
        """A new issue that triage sends to needs-info; its number, once that job has ended."""
        number = self.open_issue(tag)
        self.wait_asked(number)
        return number

    def open_issue(self, tag: str) -> int:
        """A new issue whose triage will ask a question; its number (not waiting for triage)."""
        self.decide(tag, "needs-info")
        return self.world.open_issue(f"Add a stock total [{tag}]", "Sum the quantities.").number

    def wait_asked(self, number: int) -> None:
        """Until issue `number` is at needs-info and its triage job has ended."""
        wait_for("needs-info", lambda: "agent:needs-info" in self.world.labels(number), every=0.05)
        self.wait_ended(number, 1)

    def wait_ended(self, number: int, jobs: int) -> None:
        """Until `jobs` triage jobs of issue `number` have ended."""
        wait_for(f"#{number}'s triage job to end", lambda: self._ended(number) >= jobs)

    def _ended(self, number: int) -> int:
        ended = f"job ended #{number} triage "
        return sum(ended in line for line in self.log_lines())

    def answer_starts_triage(self, tag: str, number: int) -> float:
        """Seconds from a trusted answer on `number` to its next triage job starting."""
        self.decide(tag, "ready")
        before = self.triage_jobs(number)
        started = time.monotonic()
        self.world.comment(number, "No, reserved items do not count.", author=TRUSTED)
        wait_for("the triage job", lambda: self.triage_jobs(number) > before, timeout=120)
        return time.monotonic() - started

    def interrupt(self) -> None:
        """Ctrl-C once: the loop cools down and, idle, ends by itself."""
        assert self.process is not None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)

    def stop(self) -> tuple[str, str]:
        """Ctrl-C (twice if need be); the loop's stdout and stderr."""
        assert self.process is not None
        if self.process.returncode is None:
            self.interrupt()
        try:
            return self.process.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.send_signal(signal.SIGINT)
            return self.process.communicate(timeout=120)
