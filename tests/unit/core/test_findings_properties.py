"""Properties of the finding rules over generated findings and re-reviews."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conveyor.core import replies
from conveyor.core.findings import Raw, apply_rereview, number_of, number_raw
from conveyor.core.state import Finding, IssueState

LENSES = st.sampled_from(["correctness", "tests", "scope", "acceptance", "security"])
STATUSES = st.sampled_from(["open", "resolved", "disputed"])
REPLY_FINDINGS = st.builds(
    replies.Finding,
    severity=st.sampled_from(["blocking", "nit"]),
    file=st.sampled_from(["a.py", "b.py"]),
    line=st.one_of(st.none(), st.integers(1, 5)),
    evidence=st.sampled_from(["x", "y", "z"]),
    suggestion=st.just("s"),
)


@st.composite
def stored(draw: st.DrawFn) -> tuple[Finding, ...]:
    """Findings numbered F1..Fn with random lenses and statuses."""
    count = draw(st.integers(0, 6))
    return tuple(
        Finding(
            id=f"F{i + 1}",
            lens=draw(LENSES),
            severity="blocking",
            file="a.py",
            line=i + 1,
            evidence=f"p{i}",
            status=draw(STATUSES),
        )
        for i in range(count)
    )


@given(earlier=stored(), raws=st.lists(st.tuples(LENSES, REPLY_FINDINGS), max_size=8))
def test_numbering_never_reuses_a_number(
    earlier: tuple[Finding, ...], raws: list[tuple[str, replies.Finding]]
) -> None:
    """New findings are numbered after every earlier one, each number once."""
    made = number_raw(earlier, [Raw(lens, f) for lens, f in raws])
    numbers = [number_of(f.id) for f in (*earlier, *made)]
    assert len(numbers) == len(set(numbers))
    assert all(f.severity == "blocking" for f in made)


@given(
    findings=stored(),
    lens=LENSES,
    still=st.lists(st.integers(1, 7), max_size=4),
    new=st.lists(REPLY_FINDINGS, max_size=4),
    upheld=st.booleans(),
)
def test_a_rereview_touches_only_its_own_lens_and_loses_no_finding(
    findings: tuple[Finding, ...],
    lens: str,
    still: list[int],
    new: list[replies.Finding],
    upheld: bool,
) -> None:
    """Other lenses' findings stay as they were; nothing is dropped from the history."""
    disputed = [number_of(f.id) for f in findings if f.status == "disputed"]
    rulings = [replies.Ruling(finding=n, upheld=upheld, reason="r") for n in disputed]
    reply = replies.RereviewReply(rulings=rulings, still_open=still, findings=new, summary="")
    after, _ = apply_rereview(IssueState(findings=findings), lens, reply, ("a.py",))
    assert len(after.findings) >= len(findings)
    for before, now in zip(findings, after.findings, strict=False):
        assert now.id == before.id
        if before.lens != lens:
            assert now == before
