"""A long body and a long comment reach the session cut to their limits (issue 33, item 6)."""

from __future__ import annotations

from conveyor.core.issue_text import BODY_LIMIT, COMMENT_LIMIT
from conveyor.testing.world import World
from tests.e2e.helpers import triage

TAIL = "THE BODY'S LAST LINE"


def test_a_64k_body_and_a_58k_comment_reach_the_agent_cut_each_with_a_note(world: World) -> None:
    """The session's issue file holds each text's start, never its end, and says how long it was."""
    session = triage("long")
    copy = {"run": 'cp "$CONVEYOR_ISSUE_FILE" "$CONVEYOR_SESSION_DIR/seen.md"'}
    session["turns"] = [{"actions": [copy]}, *session["turns"]]
    world.write_scenario([session])
    body = "\n".join(f"body line {n:04d} " + "b" * 49 for n in range(999)) + f"\n{TAIL}"
    assert len(body) > 64_000
    issue = world.open_issue("A long issue [long]", body)
    world.comment(issue.number, "COMMENT START " + "c" * 57_986)

    done = world.job(issue.number, "triage")

    assert done.returncode == 0, done.stderr
    (seen_file,) = world.repo_home.glob("jobs/*/sessions/triage-1/seen.md")
    seen = seen_file.read_text(encoding="utf-8")
    assert "body line 0000" in seen
    assert TAIL not in seen
    assert f"this issue body has {len(body):,} characters" in seen
    assert "COMMENT START" in seen
    assert "this comment has 58,000 characters" in seen
    assert "c" * (COMMENT_LIMIT + 1) not in seen
    assert len(seen) < BODY_LIMIT + COMMENT_LIMIT + 2_000
