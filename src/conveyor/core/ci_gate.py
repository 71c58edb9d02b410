"""The CI gate: which checks count on a head, and whether they passed, failed or are pending.

The gate is the base's required checks when the base is protected, otherwise every
check reported on the head, otherwise none once two empty reads at least
`ci_poll_seconds` apart have been made (reported as "ungated", never as "passed").
When several runs share a name the newest counts. Pending is a hold (CHK-15): the
state keeps a `CiWait`, and after `ci_timeout_minutes` the issue stops `no-ci`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum

from conveyor.core.state import CiWait

_NEVER = datetime.min.replace(tzinfo=UTC)


class Light(StrEnum):
    """One check's colour once the newest run of its name is taken."""

    PENDING = "pending"
    PASSED = "passed"
    FAILED = "failed"


@dataclass(frozen=True)
class Check:
    """One reported check run or commit status; `seq` breaks ties between equal times."""

    name: str
    light: Light
    at: datetime | None = None
    seq: int = 0


class Verdict(StrEnum):
    """What the gate says about a head."""

    PASSED = "passed"
    UNGATED = "ungated"
    FAILED = "failed"
    PENDING = "pending"
    TIMED_OUT = "timed-out"


@dataclass(frozen=True)
class Gate:
    """The gate's answer: the verdict, the names it judged, the failing ones, the wait to save."""

    verdict: Verdict
    names: tuple[str, ...] = ()
    failing: tuple[str, ...] = ()
    wait: CiWait | None = None
    note: str = ""


def newest(checks: Sequence[Check]) -> dict[str, Check]:
    """The newest run of each name (a run without a time is older than one with)."""

    def key(check: Check) -> tuple[bool, datetime, int]:
        return (check.at is not None, check.at or _NEVER, check.seq)

    out: dict[str, Check] = {}
    for check in checks:
        earlier = out.get(check.name)
        if earlier is None or key(check) >= key(earlier):
            out[check.name] = check
    return out


def _wait(sha: str, earlier: CiWait | None, now: datetime, *, empty: bool) -> CiWait:
    if earlier is None or earlier.sha != sha:
        return CiWait(sha=sha, since=now, empty_reads=int(empty), last_read=now)
    reads = earlier.empty_reads + 1 if empty else 0
    return earlier.model_copy(update={"empty_reads": reads, "last_read": now})


def _hold(sha: str, earlier: CiWait | None, now: datetime, timeout: timedelta, note: str) -> Gate:
    wait = _wait(sha, earlier, now, empty=False)
    if now - wait.since >= timeout:
        return Gate(Verdict.TIMED_OUT, note=f"{note} after {timeout} of waiting")
    return Gate(Verdict.PENDING, wait=wait, note=note)


def _judge(
    lights: dict[str, Light], sha: str, earlier: CiWait | None, now: datetime, timeout: timedelta
) -> Gate:
    names = tuple(sorted(lights))
    failing = tuple(n for n in names if lights[n] is Light.FAILED)
    if failing:
        return Gate(Verdict.FAILED, names, failing, note="failing: " + ", ".join(failing))
    pending = tuple(n for n in names if lights[n] is Light.PENDING)
    if pending:
        return _hold(sha, earlier, now, timeout, "pending: " + ", ".join(pending))
    return Gate(Verdict.PASSED, names, note="passed: " + ", ".join(names))


def read_gate(
    sha: str,
    checks: Sequence[Check],
    required: Sequence[str] | None,
    earlier: CiWait | None,
    *,
    now: datetime,
    poll_seconds: float,
    timeout_minutes: float,
) -> Gate:
    """Judge the checks reported on `sha`; `required` is None (or empty) when the base is open.

    `earlier` is the wait the state saved at the last read (for this or another head).
    """
    timeout = timedelta(minutes=timeout_minutes)
    runs = newest(checks)
    if required:
        lights = {name: runs[name].light if name in runs else Light.PENDING for name in required}
        return _judge(lights, sha, earlier, now, timeout)
    if runs:
        return _judge({n: c.light for n, c in runs.items()}, sha, earlier, now, timeout)
    wait = _wait(sha, earlier, now, empty=True)
    last = earlier.last_read if earlier is not None and earlier.sha == sha else None
    spaced = last is not None and now - last >= timedelta(seconds=poll_seconds)
    if wait.empty_reads >= 2 and spaced:
        return Gate(Verdict.UNGATED, note="no check reported after two reads: ungated")
    if wait.empty_reads >= 2 and earlier is not None:
        wait = earlier  # too soon after the first empty read: it does not count
    if now - wait.since >= timeout:
        return Gate(Verdict.TIMED_OUT, note=f"no check reported after {timeout} of waiting")
    return Gate(Verdict.PENDING, wait=wait, note="no check reported yet")


def unrelated(failing: Sequence[str], on_base: Sequence[Check]) -> tuple[str, ...]:
    """The failing names whose newest run on the base's head failed too (CHK: checks-unrelated)."""
    base = newest(on_base)
    return tuple(n for n in failing if n in base and base[n].light is Light.FAILED)


def pending_on_base(failing: Sequence[str], on_base: Sequence[Check]) -> tuple[str, ...]:
    """The failing names whose newest run on the base's head has not finished."""
    base = newest(on_base)
    return tuple(n for n in failing if n in base and base[n].light is Light.PENDING)


def missing_on_base(failing: Sequence[str], on_base: Sequence[Check]) -> tuple[str, ...]:
    """The failing names the base's head has no run of."""
    base = newest(on_base)
    return tuple(n for n in failing if n not in base)


def base_hold(
    gate: Gate,
    shas: tuple[str, str],
    earlier: CiWait | None,
    now: datetime,
    timeout_minutes: float,
) -> Gate:
    """A failing gate held while the base's head runs the failing checks too (issue 31).

    `shas` are the head's and the base's head's. Whether they fail there decides whose
    failure it is, so no paid fix round starts before; once `timeout_minutes` have
    passed since the wait on this head began, the failing gate stands.
    """
    sha, base_sha = shas
    wait = _wait(sha, earlier, now, empty=False)
    if now - wait.since >= timedelta(minutes=timeout_minutes):
        return gate
    note = f"{gate.note}; waiting for the base's head {base_sha[:12]} to run them too"
    return Gate(Verdict.PENDING, gate.names, gate.failing, wait, note)
