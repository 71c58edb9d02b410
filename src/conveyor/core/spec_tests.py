"""The spec writer's tests by name: what its commit check saw them do, and what a run shows.

The spec's commit check runs the suite at the spec's head (SPEC-83) and keeps, from the
run's machine report, the id of every case of the spec's test files that ran there
(passed or failed; a case skipped there is not the spec's to hold). Each later verify of a
head (the checks stage, the tests-only recheck before merge) reads its own report and
holds the head unverified unless every one of those ids is in it as run and passed:
skipped, xfailed, failed or missing (deselected, not collected, renamed) all count
against it, each named.

What a run without a report proves is said, not assumed (`judge`): a runner that wrote
no machine report at the spec's head leaves only the spec's test files and the test
command's exit status; a head whose run wrote none where the spec's did is not verified.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict

from conveyor.core.junit import Case, Report
from conveyor.core.verify import CheckResult, CommandResult, Outcome

# At most this many ids are kept (the state lives in one comment); past it, the first.
MAX_IDS = 400


class SpecTests(BaseModel):
    """The spec writer's tests as its commit check saw them at the spec's head.

    `files` are the test files the spec added or changed; `ids` the ids (pytest's node
    ids, or `file` for a file that could not be collected there) of their cases that ran
    at the spec's head; `read` whether a machine report named them (False: only the
    files are known). `no_tests` is the spec's reason for adding none. `config` pins the
    check configuration the spec changed (path, blob id; "" deleted): the judges' version
    of those files (`verify.config_read`); `suppressions` are the keys of those its
    commits added (`core.suppressions`): the spec's own.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    files: tuple[str, ...] = ()
    ids: tuple[str, ...] = ()
    read: bool = False
    no_tests: str = ""
    config: tuple[tuple[str, str], ...] = ()
    suppressions: tuple[str, ...] = ()


def spec_tests_seen(report: Report | None, files: Iterable[str], no_tests: str = "") -> SpecTests:
    """What the spec's check keeps from its run at the spec's head."""
    wanted = tuple(sorted(set(files)))
    if report is None:
        return SpecTests(files=wanted, no_tests=no_tests)
    ran = [c.id for c in report.cases if c.file in wanted and not c.skipped]
    ids = tuple(dict.fromkeys(ran))[:MAX_IDS]
    return SpecTests(files=wanted, ids=ids, read=True, no_tests=no_tests)


@dataclass(frozen=True)
class Judged:
    """Whether a run shows the spec's tests passed: `ok` None when it cannot say.

    `lines` name each test and what happened to it; `note` says what was proved.
    """

    ok: bool | None
    lines: tuple[str, ...] = ()
    note: str = ""


def _what(cases: list[Case]) -> str:
    """What happened to one id's cases, "" when they ran and passed."""
    if not cases:
        return "missing from the report (deselected, not collected, or renamed)"
    bad = next((c for c in cases if c.failed), None) or next((c for c in cases if c.skipped), None)
    if bad is None:
        return ""
    why = f": {bad.message.strip()[:200]}" if bad.message.strip() else ""
    return f"{bad.status}{why}"


def _cases(report: Report, test_id: str) -> list[Case]:
    """The cases of `test_id`, or its whole file's when that was skipped or broken at
    collection; an id that is a whole file (it could not be collected at the spec's head)
    stands for every case of that file."""
    exact = [c for c in report.cases if c.id == test_id]
    if exact:
        return exact
    if "::" in test_id:  # its file may have been skipped or broken whole at collection
        return [c for c in report.cases if c.id == test_id.split("::", 1)[0]]
    return [c for c in report.cases if c.file == test_id]


def judge(spec: SpecTests | None, report: Report | None) -> Judged:
    """Whether `report` (a head's test run) shows every spec test run and passed."""
    if spec is None:
        return Judged(None, note="no record of the spec's tests (specified before it was kept)")
    if not spec.files:
        why = f": {spec.no_tests}" if spec.no_tests else ""
        return Judged(None, note=f"the spec added no tests{why}")
    if not spec.read or not spec.ids:
        return Judged(
            None,
            note=(
                "the test runner wrote no machine report at the spec's head, so the spec's "
                f"tests are known only by file ({', '.join(spec.files)}): proved that the test "
                "command passed with them; not proved that they ran"
            ),
        )
    if report is None:
        return Judged(
            False,
            (
                "the test run wrote no JUnit report, where the spec's check read one: "
                f"nothing shows the spec's {len(spec.ids)} tests ran",
            ),
        )
    lines = [f"{t}: {what}" for t in spec.ids if (what := _what(_cases(report, t)))]
    if lines:
        return Judged(False, tuple(lines))
    return Judged(True, note=f"all {len(spec.ids)} of the spec's tests ran and passed")


NAME = "spec-tests"


def spec_tests_check(
    spec: SpecTests | None, report: Report | None, test: CommandResult
) -> CheckResult:
    """The spec's tests by name as a verify check (skipped when the tests did not run, or
    when nothing can be said: its reason says what was and was not proved)."""
    if test.outcome is not Outcome.PASSED and test.outcome is not Outcome.FAILED:
        return CheckResult(NAME, Outcome.SKIPPED, f"the test run is {test.outcome.value}")
    judged = judge(spec, report)
    if judged.ok is None:
        return CheckResult(NAME, Outcome.SKIPPED, judged.note)
    if judged.ok:
        return CheckResult(NAME, Outcome.PASSED, judged.note)
    lines = "; ".join(judged.lines)
    return CheckResult(NAME, Outcome.FAILED, f"the spec's tests did not all run and pass: {lines}")
