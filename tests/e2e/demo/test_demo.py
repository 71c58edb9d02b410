"""`conveyor demo --no-serve` from a plain install, judged by what the forge shows, what
sessions were given, and what the demo's config still does after it exits.

The demo runs from a fresh virtual environment holding a non-editable install of this
source tree without the test extra (uv's cache makes that quick), as a new user's would.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import httpx
import pytest

from conveyor.cli.demo import changes, scenario
from conveyor.cli.demo.issues import ACCOUNT, ISSUES, PLANTED, REPO, TRUSTED, tag_of
from conveyor.cli.demo.scenario import template_file
from conveyor.core.labels import Status
from conveyor.emulator.model.records import bare_repo_path
from conveyor.forge.errors import NotFound
from conveyor.forge.github import GitHubForge, token_forge
from conveyor.forge.types import Issue
from conveyor.git import GitError, Repo, read_blob
from conveyor.job.jobfile import load_job_file

SOURCE = Path(__file__).resolve().parents[3]

FIXED_STOCK = template_file("inventory/stock.py").replace(
    changes.REMOVE_OLD, changes.BUGFIX_FIXED, 1
)
# What the base branch holds once every change merged: path -> the exact text.
BASE_FILES = {
    "inventory/low_stock.py": changes.CLEAN.done,
    "inventory/stock.py": FIXED_STOCK,
    "inventory/restock.py": changes.RESTOCK.done,
    "inventory/prices.py": changes.PRICES.done,
    "inventory/value.py": changes.VALUE.done,
    "inventory/labels.py": changes.SAME_BOTH,
}


@dataclass(frozen=True)
class Demo:
    """The finished demo's forge (served again from its data folder) and Conveyor's files."""

    forge: GitHubForge
    bare: Repo
    home: Path
    issues: dict[str, Issue]
    stdout: str
    returncode: int
    bin: Path  # the fresh environment's scripts
    config: Path  # the config the demo wrote
    user_env: dict[str, str]
    url: str = ""  # the forge served again

    def base_file(self, path: str) -> str | None:
        """A file of `main`, or None."""
        try:
            return read_blob(self.bare, "refs/heads/main", path).decode()
        except GitError:
            return None


def plain_install(root: Path) -> Path:
    """A fresh venv with `uv pip install SOURCE` (no extras, not editable); its bin folder."""
    source = root / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(SOURCE / name, source / name)
    ignored = shutil.ignore_patterns("__pycache__", "*.egg-info")
    shutil.copytree(SOURCE / "src", source / "src", ignore=ignored)
    venv = root / "venv"
    # No pip of its own (ensurepip is seconds of CPU): uv, from the test extra, installs into
    # it, as pip would (a wheel built from the source, its dependencies, no bytecode).
    venv_argv = [sys.executable, "-m", "venv", "--without-pip", str(venv)]
    subprocess.run(venv_argv, check=True, timeout=300)
    uv = Path(sys.executable).parent / "uv"
    python = str(venv / "bin" / "python")
    done = subprocess.run(
        [str(uv), "pip", "install", "-q", "--python", python, str(source)],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return venv / "bin"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Demo]:
    """Run the whole demo once from a plain install, then serve its data as a user would."""
    root = tmp_path_factory.mktemp("demo")
    scripts = plain_install(root)
    (root / "user-home").mkdir()
    env = {k: v for k in ("PATH", "LANG", "TMPDIR") if (v := os.environ.get(k)) is not None}
    env |= {"HOME": str(root / "user-home"), "CONVEYOR_HOME": str(root / "unused-home")}
    argv = [str(scripts / "conveyor"), "demo", "--no-serve", "--data", str(root / "data")]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=1500, check=False)
    assert done.returncode in (0, 1), done.stdout + done.stderr
    serve = [str(scripts / "conveyor"), "forge", "serve", "--data", str(root / "data")]
    server = subprocess.Popen(serve, env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        url = server.stdout.readline().strip()
        assert url.startswith("http://"), url
        token = (root / "data" / "conveyor" / "token").read_text(encoding="utf-8").strip()
        forge = token_forge(REPO, token, base_url=url)
        issues = {}
        for number in range(1, 40):
            try:
                issue = forge.get_issue(number)
            except NotFound:  # past the last issue
                break
            if "/pull/" not in issue.html_url and (tag := tag_of(issue.title)) is not None:
                issues[tag] = issue
        owner, name = REPO.split("/")
        bare = Repo(bare_repo_path(root / "data", owner, name))
        config = root / "data" / "conveyor" / "conveyor.toml"
        home = root / "data" / "conveyor" / "home"
        yield Demo(forge, bare, home, issues, done.stdout, done.returncode, scripts, config, env,
                   url)  # fmt: skip
    finally:
        server.terminate()
        server.wait(timeout=30)


def _pipeline_comments(demo: Demo, number: int) -> list[str]:
    return [c.body for c in demo.forge.list_comments(number).comments if c.author == ACCOUNT]


@pytest.mark.timeout(1800)
def test_every_trusted_change_is_merged_and_on_the_base_branch(demo: Demo) -> None:
    """Each merged issue is closed with agent:merged, its PR merged, and main holds its code."""
    merged = ("clean", "bugfix", "ask", "same-a", "same-b", "split-prices", "split-value")
    for tag in merged:
        issue = demo.issues[tag]
        assert Status.MERGED.value in issue.labels, (tag, issue.labels, demo.stdout)
    for path, text in BASE_FILES.items():
        assert demo.base_file(path) == text, path


@pytest.mark.timeout(1800)
def test_the_split_parent_is_closed_after_its_two_ordered_parts(demo: Demo) -> None:
    """The spec writer's two sub-issues: the second waits for the first; the parent closes."""
    parent = demo.issues["split"]
    assert parent.state == "closed"
    assert Status.SPLIT.value in parent.labels
    subs = demo.forge.list_sub_issues(parent.number)
    assert [tag_of(s.title) for s in subs] == ["split-prices", "split-value"]
    assert f"After #{subs[0].number} merges." in subs[1].body


def _job_spans(demo: Demo, number: int, stage: str = "*") -> list[tuple[datetime, datetime]]:
    spans = []
    for path in demo.home.glob(f"*/jobs/issue-{number}-{stage}-*/job.json"):
        record = load_job_file(path)
        end = record.finished.at if record.finished is not None else record.heartbeat
        spans.append((record.started_at, end))
    return sorted(spans)


@pytest.mark.timeout(1800)
def test_the_splits_second_part_starts_on_the_first_parts_branch_before_it_merges(
    demo: Demo,
) -> None:
    """STK-8: the second part is stacked: its first job began before the first part's merge
    ended, and its merged PR is based on main once the stack ended."""
    first, second = demo.forge.list_sub_issues(demo.issues["split"].number)
    began = _job_spans(demo, second.number)[0][0]
    merged = _job_spans(demo, first.number, "merge")[-1][1]
    assert began < merged
    pr = demo.forge.find_pr(f"agent/issue-{second.number}")
    assert pr is not None
    assert pr.merged
    assert pr.base_ref == "main"


@pytest.mark.timeout(1800)
def test_the_visitors_issue_has_no_comment_or_label_from_the_pipeline(demo: Demo) -> None:
    """Not allowed means never touched."""
    visitor = demo.issues["visitor"]
    assert visitor.state == "open"
    assert visitor.labels == ()
    assert _pipeline_comments(demo, visitor.number) == []


@pytest.mark.timeout(1800)
def test_the_question_was_answered_by_the_trusted_user_and_the_issue_merged(demo: Demo) -> None:
    """needs-info, then the person's answer, then the pipeline went on."""
    ask = demo.issues["ask"]
    authors = [c.author for c in demo.forge.list_comments(ask.number).comments]
    assert TRUSTED in authors
    assert Status.MERGED.value in ask.labels


@pytest.mark.timeout(1800)
def test_the_planted_instruction_is_withheld_and_the_count_is_stated_on_the_forge(
    demo: Demo,
) -> None:
    """The signed triage comment says one comment was withheld; no session ever saw it."""
    clean = demo.issues["clean"]
    bodies = [c.body for c in demo.forge.list_comments(clean.number).comments]
    assert any(PLANTED in body for body in bodies)
    assert any("1 comment was withheld" in body for body in _pipeline_comments(demo, clean.number))
    session_files = [p for p in demo.home.glob("*/jobs/*/sessions/**/*") if p.is_file()]
    tasks = [p for p in session_files if p.name == "task.md"]
    prompts = [p for p in session_files if p.name == "system.md"]
    assert len(tasks) >= len(ISSUES) * 3
    assert len(prompts) == len(tasks)
    read = [*session_files, *demo.home.glob("*/runs/*/*.md")]
    leaked = [p for p in read if PLANTED in p.read_text(encoding="utf-8", errors="replace")]
    assert leaked == []


@pytest.mark.timeout(1800)
def test_a_plain_install_runs_the_demo_to_the_end_with_every_expected_outcome(
    demo: Demo,
) -> None:
    """No test extra, no editable install: every issue reaches its outcome, none misses pytest."""
    assert demo.returncode == 0, demo.stdout
    assert "No module named" not in demo.stdout
    assert "not as expected" not in demo.stdout
    assert f"conveyor status --config {demo.config}" in demo.stdout


@pytest.mark.timeout(1800)
def test_the_demos_config_still_works_after_it_exits(demo: Demo) -> None:
    """Its forge served again on the same port: doctor passes and status lists the outcomes."""
    cli = str(demo.bin / "conveyor")
    doctor = subprocess.run(
        [cli, "doctor", "--config", str(demo.config), "--json"],
        env=demo.user_env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    report = json.loads(doctor.stdout)
    assert (doctor.returncode, report["failed"]) == (0, []), doctor.stdout + doctor.stderr
    status = subprocess.run(
        [cli, "status", "--config", str(demo.config), "--json"],
        env=demo.user_env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert status.returncode == 0, status.stderr
    outcomes = {
        line["issue"]: (line["outcome"], line["pr"]) for line in json.loads(status.stdout)["issues"]
    }
    for tag in ("clean", "bugfix", "ask", "same-a", "same-b", "split-prices", "split-value"):
        outcome, pr = outcomes[demo.issues[tag].number]
        assert outcome == "merged", (tag, outcome)
        assert pr is not None
    assert outcomes[demo.issues["split"].number][0] == "split"


@pytest.mark.timeout(1800)
def test_the_wiki_only_issue_published_its_page_and_merged_without_a_pr(demo: Demo) -> None:
    """FLOW-5: the page is on the wiki's master, the issue merged, and no PR was opened."""
    issue = demo.issues["wiki"]
    assert Status.MERGED.value in issue.labels, (issue.labels, demo.stdout)
    assert issue.state == "closed"
    wiki = Repo(demo.bare.path.with_name(demo.bare.path.name.replace(".git", ".wiki.git")))
    page = read_blob(wiki, "refs/heads/master", scenario.WIKI_PAGE).decode()
    assert page == scenario.WIKI_PAGE_TEXT
    assert demo.forge.find_pr(f"agent/issue-{issue.number}") is None


def test_the_forge_served_again_shows_each_issue_s_sessions_and_their_transcripts(
    demo: Demo,
) -> None:
    """`forge serve --data` finds the demo's home: the bugfix's page links its fix session,
    whose page shows the reply it submitted."""
    number = demo.issues["bugfix"].number
    issue_page = httpx.get(f"{demo.url}/{REPO}/issues/{number}", timeout=30)
    assert issue_page.status_code == 200
    links = re.findall(rf'href="(/{REPO}/issues/{number}/sessions/[^"]+)"', issue_page.text)
    fixes = [link for link in links if f"issue-{number}-fix-" in link]
    assert fixes, links
    transcript = httpx.get(demo.url + fixes[0], timeout=30)
    assert transcript.status_code == 200
    assert "submit_reply(status=done" in html.unescape(transcript.text)
