"""`conveyor status` lists every issue known locally with its outcome and PR, and names an
issue it knows nothing about instead of printing an empty report."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from typer.testing import CliRunner

from conveyor.cli.app import app
from conveyor.core.labels import Status
from conveyor.core.pickup import IssueFacts
from conveyor.core.state import IssueState, Stage
from conveyor.core.taken import BODY, Piece, take
from conveyor.core.trust import NEVER_EDITED, Trust
from conveyor.forge.types import Issue
from conveyor.job.view_file import VIEW_FILE, IssueView
from conveyor.ops.forge.issue_md import write_issue_md
from conveyor.orchestrator.shell.snapshot_store import CACHE_FILE, CachedIssue, SnapshotStore

AT = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
ACCOUNT = "conveyor-bot"


def _issue(number: int, title: str, labels: tuple[str, ...], state: str = "open") -> Issue:
    return Issue(
        number=number, id=number, node_id=f"I_{number}", title=title, body="", state=state,  # type: ignore[arg-type]
        state_reason=None, author="alice", labels=labels, created_at=AT, updated_at=AT,
        html_url=f"http://forge.test/acme/inventory/issues/{number}",
    )  # fmt: skip


def _home(tmp_path: Path) -> tuple[Path, Path]:
    """A config and its repository home: #4 open at review, #3 merged and gone from the cache."""
    repo_home = tmp_path / "home" / "acme__inventory"
    repo_home.mkdir(parents=True)
    open_issue = _issue(4, "Add a restock helper", (Status.WORKING.value,))
    entry = CachedIssue(open_issue, None, IssueState(stage=Stage.REVIEW, pr=12), None)
    with SnapshotStore(repo_home / CACHE_FILE, ACCOUNT) as store:
        store.replace(None, [entry])
    run_dir = repo_home / "runs" / "issue-3"
    merged = _issue(3, "Add a low-stock report", (Status.MERGED.value,), state="closed")
    trust = Trust(ACCOUNT, frozenset({"alice"}))
    taking = take([Piece(BODY, "alice", "", NEVER_EDITED)], trust, {}, {})
    write_issue_md(run_dir, merged, [], trust, taking)
    facts = IssueFacts(
        number=3, author="alice", open=False, labels=merged.labels,
        state=IssueState(stage=Stage.DONE, pr=9),
    )  # fmt: skip
    view = IssueView(job_id="issue-3-merge-1", at=AT, facts=facts)
    (run_dir / VIEW_FILE).write_text(view.model_dump_json(), encoding="utf-8")
    config = tmp_path / "conveyor.toml"
    config.write_text(
        f'repo = "acme/inventory"\nhome = {json.dumps(str(repo_home.parent))}\n'
        'allowed_users = ["alice"]\n[account]\nlogin = "conveyor-bot"\ntoken_env = "T"\n'
        '[commands]\ntest = "true"\n',
        encoding="utf-8",
    )
    return config, repo_home


def test_status_lists_open_and_merged_issues_with_their_outcome_and_pr(tmp_path: Path) -> None:
    """The open one from the snapshot cache, the merged one from the view its last job left."""
    config, _ = _home(tmp_path)
    done = CliRunner().invoke(app, ["status", "--config", str(config), "--json"])
    assert done.exit_code == 0, done.output
    listed = json.loads(done.output)["issues"]
    assert listed == [
        {"issue": 3, "title": "Add a low-stock report", "outcome": "merged", "pr": 9},
        {"issue": 4, "title": "Add a restock helper", "outcome": "working on review", "pr": 12},
    ]
    text = CliRunner().invoke(app, ["status", "--config", str(config)]).output
    assert any(line.split()[:3] == ["#3", "merged", "#9"] for line in text.splitlines())


def test_status_of_an_unknown_issue_is_an_error_naming_it(tmp_path: Path) -> None:
    """`--issue 999` exits 1 with one line; a merged issue's detail still shows its title."""
    config, _ = _home(tmp_path)
    unknown = CliRunner().invoke(app, ["status", "--config", str(config), "--issue", "999"])
    assert unknown.exit_code == 1
    assert len(unknown.output.strip().splitlines()) == 1
    assert "--issue 999" in unknown.output
    merged = CliRunner().invoke(app, ["status", "--config", str(config), "--issue", "3"])
    assert merged.exit_code == 0, merged.output
    assert merged.output.startswith("#3 Add a low-stock report")
