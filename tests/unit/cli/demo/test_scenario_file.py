"""The shipped demo scenario: current, loadable, and every reply valid for its session kind."""

from __future__ import annotations

import json
from pathlib import Path

from conveyor.agents.scripted.scenario import load
from conveyor.cli.demo.issues import ISSUES, SUB_ISSUES
from conveyor.cli.demo.scenario import advance_past_question, build, render, shipped_path
from conveyor.core.replies import reply_model


def _model_name(kind: str) -> str:
    """The reply model a session kind answers with (`review-scope` → review)."""
    return kind.split("-", 1)[0]


def test_the_shipped_scenario_file_is_the_one_the_builder_writes() -> None:
    """Regenerate it with `python -m conveyor.cli.demo.scenario` after changing the builder."""
    assert shipped_path().read_text(encoding="utf-8") == render()


def test_the_shipped_scenario_loads_with_the_scripted_agents_reader() -> None:
    """The scripted agent accepts every entry of the file."""
    assert len(load(shipped_path())) == len(build()["sessions"])


def test_every_reply_in_the_scenario_validates_against_its_sessions_model() -> None:
    """A reply the MCP server would reject would stall the demo."""
    for entry in build()["sessions"]:
        for turn in entry["turns"]:
            for action in turn["actions"]:
                if "reply" in action:
                    reply_model(_model_name(entry["kind"])).model_validate(action["reply"])


def test_every_trusted_issue_has_a_triage_entry_and_the_visitors_has_none() -> None:
    """The visitor's issue must never reach an agent, so no entry may exist for it."""
    tags = {e["tag"] for e in build()["sessions"] if e["kind"] == "triage"}
    trusted = {i.tag for i in (*ISSUES, *SUB_ISSUES) if i.expected != "skipped"}
    assert trusted <= tags
    assert "visitor" not in tags


def test_advancing_past_the_question_drops_only_the_asking_triage_entry(tmp_path: Path) -> None:
    """After the answer, the first `ask` triage entry the agent finds says ready."""
    path = tmp_path / "scenario.json"
    path.write_text(render(), encoding="utf-8")
    assert advance_past_question(path, "ask")
    sessions = json.loads(path.read_text(encoding="utf-8"))["sessions"]
    first = next(e for e in sessions if e["tag"] == "ask" and e["kind"] == "triage")
    assert first["turns"][-1]["actions"][0]["reply"]["decision"] == "ready"
    assert len(sessions) == len(build()["sessions"]) - 1
    assert not advance_past_question(path, "ask")
