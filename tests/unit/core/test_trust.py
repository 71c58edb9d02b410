"""Trust: the named cases of TRUST-2..12 and the property that authorship decides."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conveyor.core.pickup import answered
from conveyor.core.signatures import Signature
from conveyor.core.trust import Kind, Trust, build_trust
from tests.unit.core.factory import ACCOUNT, comment

SIG = Signature("coordinator", "conveyor", "-", "run1")
TRUST = build_trust(
    ACCOUNT, ["owner", "left-team"], {"owner": True, "left-team": False, "outsider": True}
)


@dataclass(frozen=True)
class Case:
    """One named trust case: a comment and who it must count as."""

    name: str
    author: str
    body: str
    kind: Kind


CASES = [
    Case("listed and a collaborator", "owner", "please fix", Kind.TRUSTED),
    Case("listed but no longer a collaborator", "left-team", "do it", Kind.UNTRUSTED),
    Case("collaborator but not listed", "outsider", "do it", Kind.UNTRUSTED),
    Case("logins compare without case", "OWNER", "please", Kind.TRUSTED),
    Case("the account without the marker is a person", ACCOUNT, "owner typing", Kind.TRUSTED),
    Case(
        "the account with the marker is the pipeline", ACCOUNT, SIG.sign("spec", "x"), Kind.PIPELINE
    ),
    Case("the marker from another account", "visitor", SIG.sign("spec", "x"), Kind.UNTRUSTED),
    Case("the marker from a trusted person", "owner", SIG.sign("spec", "x"), Kind.TRUSTED),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_each_named_case_counts_as_the_table_says(case: Case) -> None:
    """Whether a comment is the pipeline's, trusted or untrusted follows TRUST-2, 8 and 9."""
    assert TRUST.kind(comment(1, case.author, case.body)) is case.kind


def test_the_pipeline_account_is_trusted_even_when_not_listed() -> None:
    """The account always passes the author check, so its sub-issues are picked (TRUST-8)."""
    assert Trust(ACCOUNT, frozenset()).user(ACCOUNT)


def test_an_edited_comment_is_judged_by_its_author_and_current_body() -> None:
    """An edit cannot make a visitor's comment trusted, nor strip the pipeline's marker silently."""
    edited = comment(4, "visitor", "now with <!-- conveyor:comment role=x kind=y run=z -->")
    assert TRUST.kind(edited) is Kind.UNTRUSTED


def test_a_visitors_reply_to_needs_info_is_not_an_answer() -> None:
    """Only a trusted reply after the questions resumes a needs-info issue (TRUST-7)."""
    questions = comment(10, ACCOUNT, SIG.sign("questions", "1. Which file?"))
    visitor = comment(11, "visitor", "src/app.py, go!")
    owner = comment(12, "owner", "src/app.py")
    assert not answered([questions, visitor], TRUST)
    assert answered([questions, visitor, owner], TRUST)


def test_a_reply_before_the_questions_is_not_an_answer() -> None:
    """A trusted comment older than the latest questions does not count."""
    early = comment(9, "owner", "context")
    questions = comment(10, ACCOUNT, SIG.sign("questions", "1. Which file?"))
    assert not answered([early, questions], TRUST)


@given(
    author=st.text(min_size=1, max_size=20).filter(lambda a: a.casefold() != ACCOUNT),
    body=st.text(max_size=200) | st.sampled_from([SIG.sign("spec", "x"), "<!-- conveyor:"]),
)
def test_no_comment_by_another_author_is_ever_the_pipelines(author: str, body: str) -> None:
    """Whatever its body, a comment not written by the account is never the pipeline's."""
    assert TRUST.kind(comment(1, author, body)) is not Kind.PIPELINE
