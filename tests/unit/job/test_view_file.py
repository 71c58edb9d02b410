"""`view.json`: the drive takes the last job's view only when that job wrote it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from conveyor.core.pickup import IssueFacts
from conveyor.core.state import IssueState, Stage
from conveyor.job.view_file import VIEW_FILE, IssueView, read_view

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


def write(run_dir: Path, at: datetime) -> IssueView:
    """A view of issue 7 saved at spec, written at `at`."""
    facts = IssueFacts(
        number=7,
        author="alice",
        open=True,
        labels=("agent:working",),
        state=IssueState(stage=Stage.SPEC),
    )
    view = IssueView(job_id="issue-7-triage-x", at=at, facts=facts)
    (run_dir / VIEW_FILE).write_text(view.model_dump_json())
    return view


def test_a_view_written_after_the_launch_gives_the_pickup_facts(tmp_path: Path) -> None:
    """The facts round-trip: labels, openness and the decoded state."""
    write(tmp_path, NOW)
    view = read_view(tmp_path, since=NOW - timedelta(seconds=1))
    assert view is not None
    facts = view.facts
    assert (facts.number, facts.open, facts.labels) == (7, True, ("agent:working",))
    assert facts.state is not None
    assert facts.state.stage is Stage.SPEC


def test_an_older_missing_or_damaged_view_is_not_used(tmp_path: Path) -> None:
    """A view from before the launch, no file, or a broken file: the drive reads the forge."""
    assert read_view(tmp_path, since=NOW) is None
    write(tmp_path, NOW - timedelta(seconds=5))
    assert read_view(tmp_path, since=NOW) is None
    (tmp_path / VIEW_FILE).write_text('{"job_id": 3')
    assert read_view(tmp_path, since=NOW - timedelta(hours=1)) is None
