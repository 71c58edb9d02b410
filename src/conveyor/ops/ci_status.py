"""The ci-status op: read the checks on a head and judge them with the CI gate (CHK-6, CHK-15)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from conveyor.core.ci_gate import Check, Gate, Light, Verdict, read_gate, unrelated
from conveyor.core.config import Limits
from conveyor.core.state import CiWait
from conveyor.forge.protocol import Forge
from conveyor.forge.types import CheckRun, CommitStatus

_GREEN = frozenset({"success", "neutral", "skipped"})


def _of_run(run: CheckRun) -> Check:
    if run.status != "completed":
        light = Light.PENDING
    else:
        light = Light.PASSED if run.conclusion in _GREEN else Light.FAILED
    return Check(run.name, light, run.completed_at or run.started_at, run.id)


def _of_status(status: CommitStatus) -> Check:
    lights = {"pending": Light.PENDING, "success": Light.PASSED}
    return Check(
        status.context, lights.get(status.state, Light.FAILED), status.updated_at, status.id
    )


def fetch_checks(forge: Forge, sha: str) -> tuple[Check, ...]:
    """Every check run and commit status on `sha`, as the gate reads them."""
    runs = tuple(_of_run(r) for r in forge.list_check_runs(sha))
    return runs + tuple(_of_status(s) for s in forge.list_statuses(sha))


@dataclass(frozen=True)
class CiStatus:
    """The gate on the head, and the failing checks that fail on the base's head too."""

    gate: Gate
    unrelated: tuple[str, ...] = ()


def read_ci(
    forge: Forge,
    sha: str,
    *,
    base: str,
    base_sha: str | Callable[[], str],
    wait: CiWait | None,
    now: datetime,
    limits: Limits,
) -> CiStatus:
    """Judge the checks on `sha`: the base's required checks when protected, else every one.

    `base_sha` (or the callable that reads it) is needed only when a check fails.
    """
    required = forge.required_checks(base)
    gate = read_gate(
        sha,
        fetch_checks(forge, sha),
        required.contexts if required else None,
        wait,
        now=now,
        poll_seconds=limits.ci_poll_seconds,
        timeout_minutes=limits.ci_timeout_minutes,
    )
    if gate.verdict is not Verdict.FAILED:
        return CiStatus(gate)
    base_head = base_sha() if callable(base_sha) else base_sha
    return CiStatus(gate, unrelated(gate.failing, fetch_checks(forge, base_head)))
