"""Stop codes and labels: one per control, described, documented, one at a time."""

from __future__ import annotations

from pathlib import Path

from conveyor.core.labels import (
    DESCRIPTION_MAX,
    Status,
    all_labels,
    labels_markdown,
    relabel,
    stop_code_of,
)
from conveyor.core.stops import StopCode

DOCS = Path(__file__).parents[3] / "docs" / "labels.md"
STOP4 = (
    "budget fix-loop review-rounds checks-unrelated check-fixes no-ci triage-rejected "
    "triage-limit not-doable too-large acceptance branch-changed conflict sync-limit "
    "push-rejected merge-refused error"
)
STOP5 = "job no-work spec-files environment user-harm users-rights financial-harm abuse-risk"
# Issue 45: what judges the change, held for a person.
ISSUE45 = "checks-config"
# A person closed the PR handed over to them (handover.merge = "person") without merging it.
HANDOVER = "pr-closed"


def test_every_stop_code_of_the_references_is_a_member() -> None:
    """The enum holds the STOP-4 table, the STOP-5 extras, issue 45's and the handover's, and
    nothing else."""
    assert {c.value for c in StopCode} == set(f"{STOP4} {STOP5} {ISSUE45} {HANDOVER}".split())


def test_every_label_is_unique_coloured_and_described_within_githubs_limit() -> None:
    """Names are unique, colours are 6 hex digits and descriptions fit in 100 characters."""
    labels = all_labels()
    assert len({d.name for d in labels}) == len(labels)
    for d in labels:
        assert len(d.colour) == 6
        int(d.colour, 16)
        assert 0 < len(d.description) <= DESCRIPTION_MAX


def test_each_stop_label_names_its_control_and_points_at_the_stop_comment() -> None:
    """A stop label's description says which control stopped it and where to read more (GH-4)."""
    for d in all_labels():
        if d.name.startswith("agent:stopped-"):
            assert d.control in d.description
            assert "stop comment" in d.description


def test_the_labels_page_matches_the_label_table() -> None:
    """docs/labels.md is exactly what the table generates: every label, trigger and next step."""
    assert DOCS.read_text() == labels_markdown()


def test_relabelling_leaves_exactly_one_agent_label() -> None:
    """Setting a status removes every other agent label and keeps foreign labels."""
    add, remove = relabel(["bug", "agent:working", "agent:needs-info"], StopCode.BUDGET.label)
    assert add == ("agent:stopped-budget",)
    assert set(remove) == {"agent:working", "agent:needs-info"}
    assert relabel(["agent:working"], Status.WORKING) == ((), ())


def test_the_stop_code_is_read_back_from_its_label() -> None:
    """Labels carry codes, so no free-text matching is needed."""
    assert stop_code_of(["bug", "agent:stopped-too-large"]) is StopCode.TOO_LARGE
    assert stop_code_of(["agent:working"]) is None
