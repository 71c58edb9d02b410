"""The review of a person's PR as a pure machine: brief, angles, judge, reviewer, post."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from conveyor.core.config import ReviewSettings
from conveyor.core.diff_lines import parse_diff
from conveyor.core.pr_review_record import read_marker
from conveyor.core.review_replies import AngleReply, BriefReply, PrReviewReply
from conveyor.core.session import SessionStatus
from conveyor.stages.effects import Done, LaunchSession, SessionEnded
from conveyor.stages.effects_pr_review import (
    NoteOnPr,
    PostPrReview,
    PrHeadRead,
    PrReviewPosted,
    ReadPrHead,
)
from conveyor.stages.pr_review import PrInputs, PrReviewEnd, PrStep, start, transition

DIFF = """\
diff --git a/src/calc.py b/src/calc.py
index 1111111..2222222 100644
--- a/src/calc.py
+++ b/src/calc.py
@@ -1,2 +1,6 @@
 def add(a, b):
-    return a + b
+    return a - b  # noqa: E501
+
+
+def twice(a):
+    return 2 * a
"""
HEAD = "a" * 40


def inputs(**changes: Any) -> PrInputs:
    """A review of PR #7 that changes `src/calc.py`."""
    files = parse_diff(DIFF)
    made = PrInputs(
        number=7, title="Subtract", head_sha=HEAD, base="main", pr_file="/r/issue.md",
        diff_file="/r/pr.diff", files=files, changed=6, settings=ReviewSettings(),
        soft=150_000, hard=175_000,
    )  # fmt: skip
    return replace(made, **changes)


def replied(reply: object) -> SessionEnded:
    """A session that replied."""
    return SessionEnded(SessionStatus.REPLIED, reply)  # type: ignore[arg-type]


def failed() -> SessionEnded:
    """A session that gave no valid reply."""
    return SessionEnded(SessionStatus.FAILED, None, "no reply")


def angle(name: str, *found: dict[str, Any]) -> SessionEnded:
    """An angle's reply with these findings."""
    return replied(
        AngleReply.model_validate({"angle": name, "findings": list(found), "summary": ""})
    )


def finding(claim: str, line: int | None = 2, severity: str = "blocking") -> dict[str, Any]:
    """One finding on `src/calc.py`."""
    return {"severity": severity, "file": "src/calc.py", "line": line, "end_line": None,
            "claim": claim, "evidence": "the diff", "suggestion": "add instead"}  # fmt: skip


BRIEF = replied(BriefReply(brief="Subtracts.", size="s", risky_paths=[], summary=""))


def run_to_post(step: PrStep) -> PrStep:
    """From the brief's launch through two angles and the reviewer to the head read."""
    assert isinstance(step.action, LaunchSession)
    assert step.action.kind == "brief"
    step = transition(step.memory, BRIEF)
    assert isinstance(step.action, LaunchSession)
    assert step.action.kind == "angle-correctness"
    step = transition(step.memory, angle("correctness", finding("add() subtracts its arguments")))
    assert isinstance(step.action, LaunchSession)
    assert step.action.kind == "angle-tests"
    untested = finding("twice() has no test", line=5, severity="major")
    step = transition(step.memory, angle("tests", finding("add subtracts arguments now"), untested))
    assert isinstance(step.action, LaunchSession)
    assert step.action.kind == "pr-review"
    said = [{"finding": 1, "comment": "This subtracts."}]
    words = PrReviewReply.model_validate({"summary": "Subtracts, not adds.", "wordings": said})
    step = transition(step.memory, replied(words))
    assert isinstance(step.action, ReadPrHead)
    return step


def test_a_review_briefs_looks_from_each_angle_judges_and_posts_one_review() -> None:
    """Size s brings correctness and tests; their same finding is one, with both angles; the
    review goes on the lines the diff shows, and its hidden record names the head."""
    step = run_to_post(start(inputs()))
    step = transition(step.memory, PrHeadRead(True, HEAD))
    post = step.action
    assert isinstance(post, PostPrReview)
    assert (post.event, post.commit_id) == ("COMMENT", HEAD)
    assert [(c.path, c.line, c.start_line) for c in post.comments] == [
        ("src/calc.py", 2, None), ("src/calc.py", 5, None),
    ]  # fmt: skip
    assert "This subtracts." in post.comments[0].body
    assert "correctness, tests" in post.comments[0].body
    recorded = read_marker(post.body)
    assert recorded is not None
    assert recorded.head == HEAD
    assert [(f.number, f.line, f.severity) for f in recorded.findings] == [
        (1, 2, "blocking"), (2, 5, "major"),
    ]  # fmt: skip
    end = transition(step.memory, PrReviewPosted(1, "u", 3)).action
    assert isinstance(end, PrReviewEnd)
    assert end.outcome == "reviewed"


def test_the_checks_silenced_and_the_files_checks_read_are_said_in_the_review() -> None:
    """A `# noqa` the PR adds is a finding of the `checks` angle; changed check files are
    named in the notes."""
    from conveyor.core.check_inputs import silencers

    files = parse_diff(DIFF)
    step = run_to_post(start(inputs(planted=silencers(files), check_files=("pyproject.toml",))))
    post = transition(step.memory, PrHeadRead(True, HEAD)).action
    assert isinstance(post, PostPrReview)
    assert "`pyproject.toml`" in post.body
    assert any("noqa" in c.body and "checks" in c.body for c in post.comments)


def test_texts_withheld_for_an_untrusted_edit_are_named_to_the_person_in_the_review() -> None:
    """The review's notes name each trusted person's text the sessions did not read because
    someone untrusted edited it last, and who (TRUST-12 on a PR)."""
    held = ("the description (last edited by @mallory, who is not trusted)",)
    step = run_to_post(start(inputs(held=held, withheld=1)))
    post = transition(step.memory, PrHeadRead(True, HEAD)).action
    assert isinstance(post, PostPrReview)
    assert "the description (last edited by @mallory, who is not trusted)" in post.body
    assert "1 text(s) by users who are not trusted were not read." in post.body


def test_request_changes_only_when_configured_and_blocking() -> None:
    """Blocking findings with `request_changes` on: REQUEST_CHANGES; off: COMMENT."""
    step = run_to_post(start(inputs(request_changes=True)))
    post = transition(step.memory, PrHeadRead(True, HEAD)).action
    assert isinstance(post, PostPrReview)
    assert post.event == "REQUEST_CHANGES"


def test_a_head_that_moved_is_said_and_a_closed_pr_gets_no_review() -> None:
    """Moved: the review is of the reviewed head and says so; closed: nothing is posted."""
    step = run_to_post(start(inputs()))
    moved = transition(step.memory, PrHeadRead(True, "b" * 40)).action
    assert isinstance(moved, PostPrReview)
    assert moved.commit_id == HEAD
    assert "moved to `bbbbbbbbbbbb`" in moved.body
    gone = transition(step.memory, PrHeadRead(False, None)).action
    assert isinstance(gone, PrReviewEnd)
    assert gone.outcome == "gone"


def test_a_distiller_failing_twice_tells_the_pr_and_fails() -> None:
    """No brief: the review cannot run; one note on the PR says why (BB-REV-5)."""
    step = start(inputs())
    step = transition(step.memory, failed())
    assert isinstance(step.action, LaunchSession)
    assert step.action.attempt == 2
    step = transition(step.memory, failed())
    assert isinstance(step.action, NoteOnPr)
    end = transition(step.memory, Done()).action
    assert isinstance(end, PrReviewEnd)
    assert (end.outcome, "distiller" in end.reason) == ("failed", True)


def test_a_failing_angle_is_named_and_the_others_are_judged() -> None:
    """One angle fails twice: the review goes on with the other and names it."""
    step = transition(start(inputs()).memory, BRIEF)
    step = transition(step.memory, failed())
    step = transition(step.memory, failed())
    assert isinstance(step.action, LaunchSession)
    assert step.action.kind == "angle-tests"
    step = transition(step.memory, angle("tests", finding("twice() has no test", 5)))
    step = transition(step.memory, replied(PrReviewReply(summary="s", wordings=[])))
    post = transition(step.memory, PrHeadRead(True, HEAD)).action
    assert isinstance(post, PostPrReview)
    assert "Angles that could not run: correctness." in post.body


def test_every_angle_failing_fails_the_review() -> None:
    """No angle ran: nothing to judge; the PR is told."""
    step = transition(start(inputs()).memory, BRIEF)
    for _ in range(4):
        step = transition(step.memory, failed())
    assert isinstance(step.action, NoteOnPr)
    assert "every angle failed" in step.action.text


def test_an_empty_diff_has_nothing_to_review() -> None:
    """No changed lines: no session runs."""
    end = start(inputs(changed=0)).action
    assert isinstance(end, PrReviewEnd)
    assert end.outcome == "nothing"


def test_a_finding_off_the_diff_goes_in_the_body() -> None:
    """A line no hunk shows cannot carry a comment: the body lists it whole."""
    step = transition(start(inputs()).memory, BRIEF)
    step = transition(step.memory, angle("correctness", finding("module docstring wrong", 40)))
    step = transition(step.memory, angle("tests"))
    step = transition(step.memory, replied(PrReviewReply(summary="s", wordings=[])))
    post = transition(step.memory, PrHeadRead(True, HEAD)).action
    assert isinstance(post, PostPrReview)
    assert post.comments == ()
    assert "Not on a line of the diff" in post.body
    assert "module docstring wrong" in post.body


def test_the_sizes_angles_and_models_come_from_the_config() -> None:
    """Size s with configured angles and an angle model: the angle session runs on it."""
    settings = ReviewSettings(angles={"s": ("security",)}, angle_models={"security": "opus"},
                              brief_model="haiku")  # fmt: skip
    step = start(inputs(settings=settings))
    assert isinstance(step.action, LaunchSession)
    assert step.action.model == "haiku"
    step = transition(step.memory, BRIEF)
    assert isinstance(step.action, LaunchSession)
    assert (step.action.kind, step.action.model) == ("angle-security", "opus")
