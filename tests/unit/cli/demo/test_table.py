"""The closing table: outcomes from labels, totals from jobs, misses named, the critical path."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from conveyor.cli.demo.table import (
    IssueFacts,
    JobSpan,
    build_rows,
    critical_path,
    misses,
    outcome,
    render,
    stacking_lines,
)

T0 = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


def _job(stage: str, start: int, end: int, sessions: int = 1, tokens: int = 100) -> JobSpan:
    return JobSpan(stage, T0 + timedelta(seconds=start), T0 + timedelta(seconds=end), sessions,
                   tokens)  # fmt: skip


def _facts(number: int, tag: str, *labels: str, **more: object) -> IssueFacts:
    values: dict[str, object] = {
        "number": number, "tag": tag, "title": f"Do {tag} [{tag}]", "author_trusted": True,
        "open": True, "labels": labels, "pr": None, "fix_rounds": 0, "jobs": (),
    }  # fmt: skip
    values |= more
    return IssueFacts(**values)  # type: ignore[arg-type]


def test_each_label_gives_its_outcome() -> None:
    """Merged, stopped with its control, waiting, split (closed), skipped, in progress."""
    assert outcome(_facts(1, "a", "agent:merged", open=False)) == "merged"
    assert outcome(_facts(1, "a", "agent:stopped-conflict")) == "stopped (conflict)"
    assert outcome(_facts(1, "a", "agent:needs-info")) == "waiting for an answer"
    assert outcome(_facts(1, "a", "agent:split", open=False)) == "split"
    assert outcome(_facts(1, "a", "agent:split")) == "split (parent open)"
    assert outcome(_facts(1, "a", author_trusted=False)) == "skipped"
    assert outcome(_facts(1, "a", "agent:working", jobs=(_job("spec", 0, 1),))) == "in progress"


def test_rows_sum_sessions_and_tokens_over_the_issues_jobs() -> None:
    """One row per issue, by number, with its PR and fix rounds."""
    jobs = (_job("triage", 0, 5, 1, 300), _job("review", 6, 9, 3, 900))
    rows = build_rows(
        [
            _facts(4, "b", "agent:merged", pr=9, fix_rounds=1, jobs=jobs),
            _facts(2, "a", author_trusted=False),
        ]
    )
    assert [(r.number, r.outcome, r.pr, r.fix_rounds, r.sessions, r.tokens) for r in rows] == [
        (2, "skipped", None, 0, 0, 0),
        (4, "merged", 9, 1, 4, 1200),
    ]
    text = render(rows)
    assert "#9" in text
    assert "1,200" in text


def test_misses_name_every_issue_off_its_expected_outcome_and_every_one_never_opened() -> None:
    """The exit status and its message come from these lines."""
    rows = build_rows([_facts(1, "a", "agent:merged"), _facts(2, "b", "agent:stopped-ci")])
    found = misses(rows, {"a": "merged", "b": "merged", "c": "merged"})
    assert found == [
        "#2 [b]: stopped (ci) (expected merged)",
        "[c]: never opened (expected merged)",
    ]
    assert misses(rows[:1], {"a": "merged"}) == []


def test_the_critical_path_names_the_issue_that_finished_last_and_its_stages() -> None:
    """Repeated stages are folded so the line stays short."""
    early = _facts(1, "a", jobs=(_job("triage", 0, 10),))
    jobs = (_job("triage", 5, 8), _job("merge", 9, 10), _job("merge", 11, 20))
    line = critical_path([early, _facts(2, "b", jobs=jobs, after=(1,))])
    assert line.startswith("#2 [b] finished last, 20s after the first job began")
    assert "started 5s in, after #1 merged" in line
    assert "triage 3s, merge x2 10s" in line
    assert critical_path([]) == "no job ran"


def test_a_stacked_issue_is_reported_against_its_prerequisites_merge() -> None:
    """The demo says how long before its prerequisite merged the stacked issue began."""
    first = _facts(1, "a", jobs=(_job("triage", 0, 5), _job("merge", 25, 30)))
    second = _facts(2, "b", jobs=(_job("triage", 12, 14), _job("merge", 31, 33)), after=(1,))
    stacked = _facts(2, "b", jobs=second.jobs, after=(1,), stacked_on=1)
    assert stacking_lines([first, second]) == []
    assert stacking_lines([first, stacked]) == [
        "#2 [b] began on #1's branch 18s before #1 merged (stacked, STK-8)"
    ]
    assert "stacked on #1's branch" in critical_path([first, stacked])
