"""Properties of the sized review's judge over generated findings (hypothesis)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from conveyor.core.review_judge import Spotted, judge, rank
from conveyor.core.review_replies import SEVERITIES, AngleFinding

WORDS = ["null", "overflow", "race", "leak", "token", "cart", "total", "negative", "empty", "log"]


@st.composite
def spotted(draw: st.DrawFn) -> Spotted:
    """A finding of one of four angles, in one of three files, with a short claim."""
    line = draw(st.none() | st.integers(1, 30))
    end = None if line is None else draw(st.none() | st.integers(line, line + 5))
    finding = AngleFinding(
        severity=draw(st.sampled_from(SEVERITIES)),
        file=draw(st.sampled_from(["a.py", "./a.py", "b.py", "c/d.py"])),
        line=line,
        end_line=end,
        claim=" ".join(draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=4))),
        evidence=draw(st.sampled_from(["", "seen in the diff", "the test shows it"])),
        suggestion="fix",
    )
    return Spotted(draw(st.sampled_from(["correctness", "tests", "security", "design"])), finding)


FOUND = st.lists(spotted(), max_size=12)


@settings(max_examples=200)
@given(FOUND, st.randoms())
def test_the_list_does_not_depend_on_the_order_the_angles_replied_in(found, rnd) -> None:  # type: ignore[no-untyped-def]
    """Any permutation of the same findings gives the same list."""
    shuffled = list(found)
    rnd.shuffle(shuffled)
    assert judge(found) == judge(shuffled)


@settings(max_examples=200)
@given(FOUND)
def test_judging_the_list_again_merges_nothing_more(found: list[Spotted]) -> None:
    """The merged list has no duplicates left: judging it again keeps every finding."""
    once = judge(found)
    again = judge(
        Spotted(
            j.angles[0],
            AngleFinding(
                severity=j.severity,
                file=j.file,
                line=j.line,
                end_line=j.end_line,
                claim=j.claim,
                evidence=j.evidence,
                suggestion=j.suggestion,
            ),
        )
        for j in once
    )
    assert len(again) == len(once)


@settings(max_examples=200)
@given(FOUND)
def test_no_finding_and_no_angle_is_lost_and_none_grows_more_severe(found: list[Spotted]) -> None:
    """Every angle that found something is named; the list is never longer than the input;
    the most severe input severity is the list's most severe."""
    judged = judge(found)
    assert len(judged) <= len(found)
    assert {s.angle for s in found} == {a for j in judged for a in j.angles}
    if found:
        assert min(rank(j.severity) for j in judged) == min(rank(s.finding.severity) for s in found)
    assert [rank(j.severity) for j in judged] == sorted(rank(j.severity) for j in judged)
