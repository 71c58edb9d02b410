"""check_invariants: clean snapshots pass and each broken rule is reported."""

from __future__ import annotations

from conveyor.core.claims import claim_body
from conveyor.core.invariants import IssueSnapshot, PrSnapshot, Snapshot, check_invariants
from conveyor.core.signatures import Signature
from conveyor.core.state import IssueState
from conveyor.core.state_codec import encode_state
from tests.unit.core.factory import ACCOUNT, T0, comment

SIG = Signature("coordinator", "conveyor", "-", "run1")
STATE = encode_state(IssueState())


def rules(*issues: IssueSnapshot) -> list[str]:
    """The names of the violated rules."""
    return [v.rule for v in check_invariants(Snapshot(ACCOUNT, T0, 3, issues))]


def test_a_clean_issue_has_no_violations() -> None:
    """One state comment, one label, a live claim while open and a conventional PR pass."""
    issue = IssueSnapshot(
        7,
        True,
        ("bug", "agent:working"),
        (comment(1, ACCOUNT, STATE), comment(2, ACCOUNT, claim_body(SIG, "a", "s"))),
        PrSnapshot(9, "Fix the parser (#7)", "Closes #7\n\nDetails"),
    )
    assert rules(issue) == []


def test_each_broken_invariant_is_reported() -> None:
    """Two states, two labels, a live claim on a closed issue and a bad PR are all named."""
    claim = comment(3, ACCOUNT, claim_body(SIG, "a", "s"))
    issue = IssueSnapshot(
        7,
        False,
        ("agent:working", "agent:stopped-error"),
        (comment(1, ACCOUNT, STATE), comment(2, ACCOUNT, STATE), claim),
        PrSnapshot(9, "Fix the parser", "Fixes it"),
    )
    assert rules(issue) == [
        "one-state-comment",
        "one-status-label",
        "no-live-claim-when-closed",
        "pr-title",
        "pr-body",
    ]


def test_a_visitors_state_copy_is_not_a_duplicate() -> None:
    """Only the account's state comments count towards the one-state rule."""
    issue = IssueSnapshot(7, True, (), (comment(1, ACCOUNT, STATE), comment(2, "visitor", STATE)))
    assert rules(issue) == []
