"""ci-status on the embedded forge: its real CI, protection, the base's head and empty reads."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from conveyor.core.ci_gate import Gate, Verdict
from conveyor.core.config import Limits
from conveyor.core.state import CiWait
from conveyor.git import rev_parse
from conveyor.ops.forge.ci_status import CiStatus, read_ci
from tests.contract.ops_merge.merge_world import MergeWorld, wait_for

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


def _read(world: MergeWorld, sha: str, wait: CiWait | None = None, now: datetime = NOW) -> CiStatus:
    main = world.bot.get_branch("main")
    assert main is not None
    return read_ci(
        world.bot, sha, base="main", base_sha=main.sha, wait=wait, now=now, limits=Limits()
    )


def _settled(world: MergeWorld, sha: str) -> Gate:
    """The gate once the emulator's CI has finished on `sha`."""

    def probe() -> Gate | None:
        gate = _read(world, sha).gate
        return None if gate.verdict is Verdict.PENDING else gate

    return wait_for(probe)


def test_the_forges_real_ci_passing_passes_the_gate(with_ci: Callable[[str], MergeWorld]) -> None:
    """CHK-6: the emulator runs the repository's CI command and the `ci` run gates the head."""
    world = with_ci("test -f new.txt")
    world.branch_and_pr({"new.txt": "new\n"})
    gate = _settled(world, rev_parse(world.work, "HEAD"))
    assert gate.verdict is Verdict.PASSED
    assert gate.names == ("ci",)


def test_failing_ci_fails_and_a_check_failing_on_the_base_too_is_unrelated(
    with_ci: Callable[[str], MergeWorld],
) -> None:
    """A red `ci` fails the gate; the same check red on the base's head is unrelated."""
    world = with_ci("test ! -f new.txt")
    world.branch_and_pr({"new.txt": "new\n"})
    head = rev_parse(world.work, "HEAD")
    gate = _settled(world, head)
    assert gate.verdict is Verdict.FAILED
    assert gate.failing == ("ci",)
    assert _read(world, head).unrelated == ()
    main = world.bot.get_branch("main")
    assert main is not None
    world.bot.create_check_run(main.sha, "ci", "completed", "failure")
    assert _read(world, head).unrelated == ("ci",)


def test_a_required_check_that_never_reports_holds_then_times_out(world: MergeWorld) -> None:
    """CHK-15: protected, `ci` required, nothing reported: pending, then timed out."""
    world.branch_and_pr({"new.txt": "new\n"})
    world.protect(["ci"], strict=False)
    head = rev_parse(world.work, "HEAD")
    first = _read(world, head)
    assert first.gate.verdict is Verdict.PENDING
    late = NOW + timedelta(minutes=31)
    assert _read(world, head, first.gate.wait, late).gate.verdict is Verdict.TIMED_OUT


def test_a_repository_without_ci_is_ungated_after_two_spaced_empty_reads(world: MergeWorld) -> None:
    """No check at all: the second read ci_poll_seconds later says ungated, never passed."""
    world.branch_and_pr({"new.txt": "new\n"})
    head = rev_parse(world.work, "HEAD")
    first = _read(world, head)
    assert first.gate.verdict is Verdict.PENDING
    second = _read(world, head, first.gate.wait, NOW + timedelta(seconds=30))
    assert second.gate.verdict is Verdict.UNGATED


def test_a_newer_status_of_the_same_name_counts(world: MergeWorld) -> None:
    """Several runs share a name: the newest decides."""
    world.branch_and_pr({"new.txt": "new\n"})
    head = rev_parse(world.work, "HEAD")
    world.bot.create_check_run(head, "lint", "completed", "failure")
    assert _read(world, head).gate.verdict is Verdict.FAILED
    world.bot.create_check_run(head, "lint", "completed", "success")
    assert _read(world, head).gate.verdict is Verdict.PASSED
