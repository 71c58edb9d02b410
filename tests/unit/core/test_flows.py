"""The flows of a change and what they ask of its PR (FLOW-1..5, FLOW-7), as data."""

from __future__ import annotations

import pytest

from conveyor.core.flows import (
    Flows,
    PrAction,
    flows_of,
    guarded_head,
    pr_flow_action,
    review_thread,
)
from conveyor.core.state import IssueState


@pytest.mark.parametrize(
    ("code", "wiki", "flows"),
    [(True, False, "code"), (False, True, "wiki"), (True, True, "both"), (False, False, "neither")],
)
def test_the_two_flows_name_four_cases(code: bool, wiki: bool, flows: Flows) -> None:
    """Code changed and wiki ahead give code only, wiki only, both or neither (FLOW-1)."""
    assert flows_of(code_changed=code, wiki_ahead=wiki) == flows


@pytest.mark.parametrize(
    ("flows", "pr_open", "action"),
    [
        ("neither", True, "stop"),
        ("neither", False, "stop"),
        ("wiki", True, "close"),
        ("wiki", False, "go"),
        ("code", True, "go"),
        ("code", False, "reopen"),
        ("both", True, "go"),
        ("both", False, "reopen"),
    ],
)
def test_the_pr_is_stopped_closed_reopened_or_left_as_the_flows_say(
    flows: Flows, pr_open: bool, action: PrAction
) -> None:
    """Neither stops, wiki only closes an open PR, code reopens a closed or missing one."""
    assert pr_flow_action(flows, pr_open=pr_open) == action


def test_a_wiki_only_change_is_reviewed_on_the_issue_and_a_code_change_on_its_pr() -> None:
    """Comments go to the open PR of a code flow; a wiki-only change has none (FLOW-5)."""
    assert review_thread(IssueState(pr=12, flows="both"), 7) == 12
    assert review_thread(IssueState(pr=12, flows="wiki", pr_closed=True), 7) == 7
    assert review_thread(IssueState(pr=None, flows="wiki"), 7) == 7
    assert review_thread(IssueState(pr=12, flows="code", pr_closed=True), 7) == 7


def test_only_a_code_flow_has_a_head_for_the_branch_guard() -> None:
    """A wiki-only change pushed no code branch, so nothing there is guarded."""
    assert guarded_head(IssueState(head_sha="a" * 40, flows="code")) == "a" * 40
    assert guarded_head(IssueState(head_sha="a" * 40, flows="wiki")) is None
