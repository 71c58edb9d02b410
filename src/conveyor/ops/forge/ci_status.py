"""The ci-status op: read the checks on a head and judge them with the CI gate (CHK-6, CHK-15).

A failing gate is compared with the base's head (issue 31): a failing check that fails
there too is unrelated to the change (the issue stops `checks-unrelated`, the stop
naming it and showing the base's run); one still running there holds the gate until it
reports; one the base's head never ran is read for its failing tests (pytest's summary
in the check's output), and when every one of them fails at the base too (verify's
local run of the base) it is unrelated as well, while new ones alone are the fixer's
problems.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from conveyor.core.ci_gate import (
    Check,
    Gate,
    Light,
    Verdict,
    base_hold,
    missing_on_base,
    pending_on_base,
    read_gate,
    unrelated,
)
from conveyor.core.config import Limits
from conveyor.core.state import CiWait
from conveyor.core.test_runs import listing, summary_failures
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
    """The gate on the head, and the failing checks that fail on the base's head too.

    `note` shows how they fail there; `problems`, when set, are the fixer's problems
    in place of "CI check `name` failed" (only the failures the base did not have).
    """

    gate: Gate
    unrelated: tuple[str, ...] = ()
    note: str = ""
    problems: tuple[str, ...] = ()


# How much of the base's run a stop shows.
_SHOWN_CHARS = 1200


def _shown(run: CheckRun) -> str:
    where = f" ({run.details_url})" if run.details_url else ""
    tail = (run.summary or "").strip()[-_SHOWN_CHARS:]
    text = f"- `{run.name}` is {run.conclusion} on the base's head {run.head_sha[:12]}{where}"
    return text + (f":\n\n```\n{tail}\n```" if tail else "")


def _newest_runs(runs: tuple[CheckRun, ...], names: tuple[str, ...]) -> list[CheckRun]:
    picked: dict[str, CheckRun] = {}
    for run in runs:
        if run.name in names and (run.name not in picked or run.id > picked[run.name].id):
            picked[run.name] = run
    return [picked[n] for n in names if n in picked]


def _by_tests(
    forge: Forge, sha: str, missing: tuple[str, ...], known: frozenset[str] | None
) -> tuple[tuple[str, ...], str, tuple[str, ...]]:
    """The missing checks whose failing tests all fail at the base, a note, the new problems."""
    if known is None:
        return (), "", ()
    old_checks: list[str] = []
    notes: list[str] = []
    problems: list[str] = []
    for run in _newest_runs(forge.list_check_runs(sha), missing):
        failing = summary_failures(run.summary or "")
        if not failing:
            continue
        new, old = failing - known, failing & known
        if not new:
            old_checks.append(run.name)
            notes.append(
                f"- `{run.name}` fails only in tests that fail at the base too: {listing(old)}"
            )
        else:
            problems.append(f"CI check `{run.name}` failed: new failures: {listing(new)}")
    return tuple(old_checks), "\n".join(notes), tuple(problems)


def read_ci(
    forge: Forge,
    sha: str,
    *,
    base: str,
    base_sha: str | Callable[[], str],
    wait: CiWait | None,
    now: datetime,
    limits: Limits,
    known_at_base: Callable[[], frozenset[str] | None] | None = None,
) -> CiStatus:
    """Judge the checks on `sha`: the base's required checks when protected, else every one.

    `base_sha` (or the callable that reads it) is needed only when a check fails, and
    `known_at_base` (the tests failing at the base, None when unknown) only when the
    base's head has no run of a failing check.
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
    on_base = fetch_checks(forge, base_head)
    if same := unrelated(gate.failing, on_base):
        shown = _newest_runs(forge.list_check_runs(base_head), same)
        return CiStatus(gate, same, "\n".join(_shown(r) for r in shown) or ", ".join(same))
    if pending_on_base(gate.failing, on_base):
        held = base_hold(gate, (sha, base_head), wait, now, limits.ci_timeout_minutes)
        if held.verdict is Verdict.PENDING:
            return CiStatus(held)
    missing = missing_on_base(gate.failing, on_base)
    if not missing or known_at_base is None:
        return CiStatus(gate)
    old, note, problems = _by_tests(forge, sha, missing, known_at_base())
    if old and len(old) == len(gate.failing):
        return CiStatus(gate, old, note)
    return CiStatus(gate, problems=problems)
