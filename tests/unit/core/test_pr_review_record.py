"""A posted review's hidden record, and a re-review's marks on the earlier findings."""

from __future__ import annotations

from conveyor.core.pr_review_record import Remembered, marker, read_marker, remember, resolve
from conveyor.core.review_judge import Judged

HEAD = "a" * 40


def judged(file: str, line: int, claim: str) -> Judged:
    """A major finding."""
    return Judged("major", file, line, None, claim, "e", "s", ("correctness",))


def test_the_record_reads_back_and_a_closing_sequence_in_a_claim_cannot_end_it() -> None:
    """The claims survive `-->` inside them; the last marker of a body is the one read."""
    findings = remember([judged("a.py", 3, "ends --> early"), judged("b.py", 1, "two")])
    body = "text\n\n" + marker("f" * 40, ()) + "\n\n" + marker(HEAD, findings)
    recorded = read_marker(body)
    assert recorded is not None
    assert recorded.head == HEAD
    assert [f.claim for f in recorded.findings] == ["ends --> early", "two"]
    assert read_marker("no record") is None
    assert read_marker("<!-- conveyor:pr-review {broken -->") is None


def test_a_re_review_marks_raised_again_resolved_and_unchanged() -> None:
    """Raised again: open; its lines changed and not raised: resolved; untouched: unchanged."""
    earlier = (
        Remembered(1, "major", "a.py", 10, None, "total() off by one"),
        Remembered(2, "minor", "a.py", 40, None, "name unclear"),
        Remembered(3, "nit", "b.py", 5, None, "typo in docstring"),
    )
    new = [judged("a.py", 12, "total() is off by one")]
    touched = {"a.py": ((8, 12), (38, 41))}
    assert [s for _, s in resolve(earlier, new, touched)] == ["open", "resolved", "unchanged"]
