"""The stage registry: one definition per stage that runs a job, and none for `done`."""

from __future__ import annotations

import pytest

from conveyor.core.state import FINAL, Stage
from conveyor.stages.registry import DEFINITIONS, FIRST, STAGES, definition, has_job
from conveyor.stages.stage_def import JobRole


def test_every_stage_but_done_has_exactly_one_definition_under_its_own_name() -> None:
    """The registry is exhaustive: a new `Stage` without a definition fails here (a review
    of a person's PR is no issue's stage: its job runs no stage machine)."""
    assert set(STAGES) == set(Stage) - FINAL - {Stage.PR_REVIEW}
    assert len(DEFINITIONS) == len(STAGES)
    assert all(STAGES[stage].stage is stage for stage in STAGES)


def test_done_has_no_job_and_asking_for_its_definition_names_the_stage() -> None:
    """`done` is the pipeline's end: no job, and a clear error when one is asked for."""
    assert not has_job(Stage.DONE)
    assert not has_job(Stage.APPROVED)
    with pytest.raises(ValueError, match="'done' has no job"):
        definition(Stage.DONE)


def test_a_new_issue_starts_at_triage() -> None:
    """An issue with no saved state waits for triage."""
    assert FIRST is Stage.TRIAGE


def test_only_writer_stages_push_and_only_merge_merges() -> None:
    """JB-2: the job role each stage runs with."""
    writers = {s for s, d in STAGES.items() if d.job_role is JobRole.WRITER}
    assert writers == {Stage.SPEC, Stage.IMPLEMENT, Stage.FIX, Stage.SYNC, Stage.CHECKS}
    assert [s for s, d in STAGES.items() if d.job_role is JobRole.MERGER] == [Stage.MERGE]


def test_stages_that_read_the_spec_restore_it_and_only_the_spec_measures_its_start() -> None:
    """spec.md is rebuilt for the stages that hand it to a session; the spec fixes its start."""
    restoring = {s for s, d in STAGES.items() if d.restores_spec}
    assert restoring == {Stage.IMPLEMENT, Stage.REVIEW, Stage.FIX, Stage.ACCEPT}
    assert [s for s, d in STAGES.items() if d.measures_start] == [Stage.SPEC]


def test_the_sessions_whose_replies_are_checked_in_the_session() -> None:
    """SPEC-92: triage, spec and implement replies are checked before the session ends."""
    checked = {s: d.quick_check.schema for s, d in STAGES.items() if d.quick_check is not None}
    assert checked == {Stage.TRIAGE: "triage", Stage.SPEC: "spec", Stage.IMPLEMENT: "implement"}
