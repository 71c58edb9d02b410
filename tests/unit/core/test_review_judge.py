"""The sized review's judge: findings from several angles in, one list out (BB-REV-1)."""

from __future__ import annotations

from conveyor.core.review_judge import Spotted, judge
from conveyor.core.review_replies import AngleFinding


def spot(
    angle: str,
    claim: str,
    *,
    file: str = "app.py",
    line: int | None = 10,
    end: int | None = None,
    severity: str = "major",
    evidence: str = "seen",
) -> Spotted:
    """A finding of `angle`."""
    return Spotted(
        angle,
        AngleFinding.model_validate(
            {
                "severity": severity,
                "file": file,
                "line": line,
                "end_line": end,
                "claim": claim,
                "evidence": evidence,
                "suggestion": "fix it",
            }
        ),
    )


def test_two_angles_saying_the_same_thing_at_the_same_lines_are_one_finding() -> None:
    """Same file, overlapping lines, the same claim in other words: merged, both angles named."""
    merged = judge(
        [
            spot("correctness", "total() returns a negative count for an empty cart", line=10),
            spot("tests", "empty cart total() returns negative count", line=11, end=12),
        ]
    )
    assert len(merged) == 1
    assert merged[0].angles == ("correctness", "tests")


def test_the_merged_finding_keeps_the_most_severe() -> None:
    """A nit and a blocking finding about the same thing: the blocking one is kept."""
    merged = judge(
        [
            spot("design", "total() negative for empty cart", severity="nit", evidence="x"),
            spot("correctness", "total() negative for empty cart", severity="blocking"),
        ]
    )
    assert [(m.severity, m.angles) for m in merged] == [("blocking", ("correctness", "design"))]


def test_different_claims_files_or_far_lines_stay_apart() -> None:
    """Another claim, another file, or lines far apart: three findings, not one."""
    merged = judge(
        [
            spot("correctness", "total() negative for empty cart", line=10),
            spot("security", "the token is written to the log", line=10),
            spot("correctness", "total() negative for empty cart", file="other.py", line=10),
            spot("tests", "total() negative for empty cart", line=40),
        ]
    )
    assert len(merged) == 4


def test_the_list_is_most_severe_first_then_by_file_and_line() -> None:
    """Blocking before major before nit; within a severity, by file then line."""
    merged = judge(
        [
            spot("a", "nit claim here", severity="nit", line=1),
            spot("b", "second major problem", file="b.py", line=1),
            spot("c", "first major problem", file="a.py", line=50),
            spot("d", "blocking problem", severity="blocking", file="z.py", line=99),
        ]
    )
    assert [(m.severity, m.file, m.line) for m in merged] == [
        ("blocking", "z.py", 99),
        ("major", "a.py", 50),
        ("major", "b.py", 1),
        ("nit", "app.py", 1),
    ]


def test_findings_about_a_whole_file_merge_only_with_each_other() -> None:
    """No line on either: the same place; a line on one only: not the same place."""
    merged = judge(
        [
            spot("design", "module has no docstring", line=None),
            spot("docs", "the module has no docstring", line=None),
            spot("tests", "module has no docstring", line=3),
        ]
    )
    assert sorted(m.angles for m in merged) == [("design", "docs"), ("tests",)]


def test_a_path_written_two_ways_is_the_same_file() -> None:
    """`./app.py` and `app.py` name one file."""
    merged = judge([spot("a", "same bug here", file="./app.py"), spot("b", "same bug here")])
    assert [(m.file, m.angles) for m in merged] == [("app.py", ("a", "b"))]
