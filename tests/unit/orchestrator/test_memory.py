"""The watchdog's memory survives a round trip through watchdog.json, and bad files are named."""

from __future__ import annotations

import json
from typing import Any

import pytest

from conveyor.core.state import Stage
from conveyor.core.stops import StopCode
from conveyor.orchestrator.memory import (
    Steered,
    WatchdogStop,
    WatchMemory,
    memory_from_json,
    memory_to_json,
)

from .factory import NOW

MEMORY = WatchMemory(
    resumes=((3, 1), (12, 2)),
    stops=(WatchdogStop(17, NOW, StopCode.BUDGET, "context past budget", seen=True),),
    steered=(Steered(15, NOW, "fix-1", "Bash"),),
    escalated=((4, StopCode.CONFLICT),),
    resume_stages=((3, Stage.SPEC), (12, Stage.MERGE)),
)


def test_memory_survives_a_round_trip_through_json_text() -> None:
    """What the tick writes is what it reads back."""
    text = json.dumps(memory_to_json(MEMORY))
    assert memory_from_json(json.loads(text)) == MEMORY


def test_an_empty_memory_round_trips() -> None:
    """A first tick's memory is empty and stays so."""
    assert memory_from_json(memory_to_json(WatchMemory())) == WatchMemory()


def broken(**changes: Any) -> dict[str, Any]:
    """The sample memory as JSON with some top-level fields replaced."""
    data = memory_to_json(MEMORY)
    data.update(changes)
    return data


@pytest.mark.parametrize(
    ("data", "names"),
    [
        ([], "version 1"),
        (broken(version=2), "version 1"),
        (broken(resumes={"x": 1}), "resumes.x"),
        (broken(stops=[{"issue": "7"}]), "stops[0].issue"),
        (broken(stops=[1]), "stops[0]"),
        (
            broken(stops=[{"issue": 7, "job_started_at": "2026-11-01T12:00:00", "control": "job"}]),
            "without a timezone",
        ),
        (broken(escalated=[[4, "no-such-stop"]]), "unknown stop control"),
        (broken(steered={}), "watchdog.steered"),
        (broken(resume_stages={"3": "nowhere"}), "resume_stages.3"),
    ],
)
def test_a_malformed_memory_is_an_error_naming_the_bad_field(data: object, names: str) -> None:
    """Each broken file raises ValueError whose message says where it is wrong."""
    with pytest.raises(ValueError, match=r"watchdog\.json") as raised:
        memory_from_json(data)
    assert names in str(raised.value)


def test_a_memory_written_before_resume_stages_keeps_its_counts() -> None:
    """A watchdog.json without `resume_stages` reads with its resume counts and no stages."""
    data = memory_to_json(MEMORY)
    del data["resume_stages"]
    read = memory_from_json(data)
    assert (read.resumes, read.resume_stages) == (MEMORY.resumes, ())
