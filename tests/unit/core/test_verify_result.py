"""Verify's result values: when verify passed, and what it reports when it did not."""

from __future__ import annotations

from conveyor.core.verify import CheckResult, CommandResult, Outcome, VerifyResult, skipped

PASSED_TEST = CommandResult("test", Outcome.PASSED, exit_code=0, log_path="/l/test.log")


def result(
    *commands: CommandResult,
    fbf: CheckResult | None = None,
    lockfiles: CheckResult | None = None,
) -> VerifyResult:
    """A result with skipped checks unless given."""
    return VerifyResult(
        base_sha="a" * 40,
        head_sha="b" * 40,
        commands=commands,
        fails_before_fix=fbf or CheckResult("fails-before-fix", Outcome.SKIPPED, "docs only"),
        lockfiles=lockfiles or CheckResult("lockfiles", Outcome.SKIPPED, "no lockfile changed"),
    )


def test_passed_and_skipped_steps_pass_verify() -> None:
    """Skips (not configured, nothing to check) never hold verify back."""
    outcome = result(skipped("setup", "not configured"), PASSED_TEST)
    assert outcome.passed
    assert outcome.failures() == ()


def test_a_timed_out_command_fails_verify_and_is_listed() -> None:
    """A timeout is a failure, reported with its reason."""
    hung = CommandResult("lint", Outcome.TIMED_OUT, reason="no result within 5 s")
    outcome = result(PASSED_TEST, hung)
    assert not outcome.passed
    assert outcome.failures() == ("lint: timed-out: no result within 5 s",)


def test_a_failed_check_fails_verify_with_its_reason() -> None:
    """fails-before-fix and the lockfile check count like the commands."""
    fbf = CheckResult("fails-before-fix", Outcome.FAILED, "the tests pass with the fix reverted")
    locks = CheckResult("lockfiles", Outcome.FAILED, "differ: uv.lock", ("uv.lock",))
    outcome = result(PASSED_TEST, fbf=fbf, lockfiles=locks)
    assert not outcome.passed
    assert outcome.failures() == (
        "fails-before-fix: failed: the tests pass with the fix reverted",
        "lockfiles: failed: differ: uv.lock",
    )


def test_a_failed_command_names_its_exit_code() -> None:
    """The exit status is part of the failure line."""
    outcome = result(CommandResult("test", Outcome.FAILED, exit_code=2))
    assert outcome.failures() == ("test: failed (exit 2)",)


def test_the_summary_has_a_line_per_command_and_check() -> None:
    """Acceptance gets one line per step with its outcome and reason."""
    lines = result(skipped("setup", "not configured"), PASSED_TEST).summary().splitlines()
    assert lines[0] == "verify of bbbbbbbbbbbb against aaaaaaaaaaaa"
    assert lines[1:] == [
        "- setup: skipped (not configured)",
        "- test: passed",
        "- fails-before-fix: skipped (docs only)",
        "- lockfiles: skipped (no lockfile changed)",
        "- migrations: skipped (not run)",
    ]


def test_a_command_is_found_by_name() -> None:
    """`command(name)` returns that command's result, or None."""
    outcome = result(PASSED_TEST)
    assert outcome.command("test") == PASSED_TEST
    assert outcome.command("lint") is None


def test_a_failed_migration_check_fails_verify_and_its_run_is_the_one_reported() -> None:
    """CHK-5: the migrations check holds verify back; its failing run is what the fixer reads."""
    down = CommandResult("migrate down 2", Outcome.FAILED, exit_code=1, tail="no such table")
    check = CheckResult("migrations", Outcome.FAILED, "migrate down failed", runs=(down,))
    outcome = VerifyResult(
        base_sha="a" * 40,
        head_sha="b" * 40,
        commands=(PASSED_TEST,),
        fails_before_fix=CheckResult("fails-before-fix", Outcome.PASSED),
        lockfiles=CheckResult("lockfiles", Outcome.SKIPPED, "no lockfile changed"),
        migrations=check,
    )
    assert not outcome.passed
    assert outcome.failures() == ("migrations: failed: migrate down failed",)
    assert outcome.failed_run("migrations") == down
    assert "- migrations: failed (migrate down failed)" in outcome.summary()
