"""Reading job.json files: running jobs by their live process, re-read when a file changes."""

from __future__ import annotations

import os
from pathlib import Path

from conveyor.cli.live.files import JobFiles, load_status_or_problem
from conveyor.job.jobfile import JOB_FILE, Finished, load_job_file, process_start_ticks
from tests.unit.cli.live.recorded import NOW, RUNNING_JOB, copy_home


def test_a_job_is_running_while_its_process_lives_and_it_has_not_finished(tmp_path: Path) -> None:
    """A job.json naming this test's process is running; once it records its end it is not."""
    home = copy_home(tmp_path)
    path = home / "jobs" / RUNNING_JOB / JOB_FILE
    record = load_job_file(path).model_copy(
        update={"pid": os.getpid(), "process_start": process_start_ticks(os.getpid())}
    )
    path.write_text(record.model_dump_json())
    files = JobFiles(home / "jobs")
    assert [(j.record.issue, j.alive) for j in files.read()] == [(3, False), (7, True)]
    ended = record.model_copy(update={"finished": Finished(outcome="saved", at=NOW)})
    path.write_text(ended.model_dump_json(indent=2))
    assert [(j.record.issue, j.alive) for j in files.read()] == [(3, False), (7, False)]


def test_a_job_file_of_a_dead_process_is_not_running(tmp_path: Path) -> None:
    """The recorded pid 4242 with another start time is not taken for the job."""
    home = copy_home(tmp_path)
    assert not any(job.alive for job in JobFiles(home / "jobs").read())


def test_an_unreadable_status_file_is_named_as_the_problem(tmp_path: Path) -> None:
    """Half-written or broken JSON gives a problem naming the file, not an exception."""
    path = tmp_path / "status.json"
    path.write_text("{not json")
    status, problem = load_status_or_problem(path)
    assert status is None
    assert problem is not None
    assert str(path) in problem
