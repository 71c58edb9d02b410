"""`conveyor transcript`: an issue's sessions drawn from the CLIs' real streams in job folders."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conveyor.cli.app import app
from conveyor.job.jobfile import JOB_FILE, JobRecord, SessionRecord, UsageRecord

STREAMS = Path(__file__).parents[2] / "data" / "agent-streams"
NOW = datetime(2026, 12, 4, 12, 0, tzinfo=UTC)
runner = CliRunner()


def _job(repo_home: Path, stage: str, stamp: str, sessions: list[tuple[str, str, str]]) -> None:
    """A finished job of issue 7 whose sessions (key, backend, stream file) left streams."""
    job_dir = repo_home / "jobs" / f"issue-7-{stage}-{stamp}"
    records = []
    for key, backend, stream in sessions:
        (job_dir / "sessions" / key).mkdir(parents=True)
        text = (STREAMS / stream).read_text()
        (job_dir / "sessions" / key / "transcript.jsonl").write_text(text)
        cost = None if backend == "codex" else 0.00042
        usage = UsageRecord(input=20, output=24)
        records.append(SessionRecord(key=key, backend=backend, model="m1", status="succeeded",
                                     usage=usage, cost_usd=cost, ended_at=NOW))  # fmt: skip
    record = JobRecord(issue=7, stage=stage, role="writer", lane="l", job_id=job_dir.name,
                       pid=1, process_start=None, started_at=NOW, heartbeat=NOW,
                       sessions=records)  # fmt: skip
    (job_dir / JOB_FILE).write_text(record.model_dump_json())


@pytest.fixture
def config(tmp_path: Path) -> Path:
    """A config whose home holds an implement job (claude) and a review job (codex, opencode)."""
    home = tmp_path / "home"
    path = tmp_path / "conveyor.toml"
    path.write_text(
        f'repo = "o/r"\nhome = "{home}"\nallowed_users = ["owner"]\n'
        '[account]\nlogin = "bot"\ntoken_env = "T"\n[commands]\ntest = "true"\n'
    )
    _job(home / "o__r", "implement", "20261204T110000Z",
         [("implement", "claude", "claude-2.1.332_mock_bash.jsonl")])  # fmt: skip
    _job(home / "o__r", "review", "20261204T113000Z",
         [("review-tests", "codex", "codex-mcp-tool.jsonl"),
          ("review-code", "opencode", "opencode-1.18.33_mock_bash.jsonl")])  # fmt: skip
    return path


def test_transcript_shows_each_session_s_messages_calls_results_and_cost(config: Path) -> None:
    """Every session of the issue shows what was said, each call with its result, and totals."""
    result = runner.invoke(app, ["transcript", "--issue", "7", "--config", str(config)])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "⏺ Bash(echo hello-from-tool > out.txt && cat out.txt)" in out
    assert "  ⎿  hello-from-tool" in out
    assert "● done: saw hello-from-tool" in out
    assert "⏺ pipeline.submit_reply(verdict=approve, summary=looks fine)" in out
    assert "⏺ bash(echo hello-from-tool > out.txt && cat out.txt)" in out
    assert "$0.0004" in out
    assert "cost unknown" in out
    assert out.index("implement · claude") < out.index("review-tests · codex")


def test_transcript_of_one_stage_leaves_the_other_stages_out(config: Path) -> None:
    """`--stage review` shows the review sessions and not the implement session."""
    result = runner.invoke(
        app, ["transcript", "--issue", "7", "--stage", "review", "--config", str(config)]
    )
    assert result.exit_code == 0, result.output
    assert "review-code · opencode" in result.output
    assert "implement · claude" not in result.output


def test_transcript_of_an_issue_without_sessions_says_so_and_exits_1(config: Path) -> None:
    """An issue no job ran for is named with the folder looked in, exit 1."""
    result = runner.invoke(app, ["transcript", "--issue", "8", "--config", str(config)])
    assert result.exit_code == 1
    assert "#8 has no agent sessions" in result.output


def test_transcript_escapes_control_characters_the_stream_holds(
    config: Path, tmp_path: Path
) -> None:
    """A tool's output with a terminal escape and a bidi override reaches the screen escaped."""
    stream = next((tmp_path / "home" / "o__r" / "jobs").glob("issue-7-implement-*"))
    path = stream / "sessions" / "implement" / "transcript.jsonl"
    event = {
        "type": "user",
        "message": {
            "content": [
                {"type": "tool_result", "tool_use_id": "t", "content": "\x1b]0;owned\x07 \u202eexe"}
            ]
        },
    }
    path.write_text(path.read_text() + json.dumps(event) + "\nnot json\n")  # fmt: skip
    result = runner.invoke(app, ["transcript", "--issue", "7", "--config", str(config)])
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.output
    assert "\u202e" not in result.output
    assert "\\x1b]0;owned\\x07 \\u202eexe" in result.output
    assert "1 lines not JSON" in result.output
