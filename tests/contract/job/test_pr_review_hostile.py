"""A review of a person's PR reads the person's tree as hostile input (issue 49, issue 44's rule).

The person writes every file of the PR's head: its `.gitattributes` (filters, diff and merge
drivers, `-diff`), its `.gitmodules` (a submodule whose `update` is a command) and a gitlink.
Checking that head out and reading its diff run Conveyor's git outside every box; none of
what the person names may run there, even when the machine's own git config defines those
drivers, and no attribute may hide a changed line from the review's diff or from the scan
for lines that silence a check.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conveyor.core.config import Config
from conveyor.core.pr_text import PrText
from conveyor.forge.types import PullRequest
from conveyor.git import GitEnv, Identity, init_bare, run_git
from conveyor.job.layout import JobPaths
from conveyor.job.pr_review.claim import Claimed
from conveyor.job.pr_review.gather import gather_inputs
from conveyor.job.pr_review.workspace import prepare_pr_checkout

pytestmark = pytest.mark.contract

IDENTITY = Identity("bot", "bot@users.noreply.conveyor")
PERSON = GitEnv(identity=Identity("Pat Person", "pat@example.com"))
NUMBER = 7
MARK = """#!/bin/sh
echo "ran: $0 $*" >> {marks}
cat
"""


def _config() -> Config:
    data = {"repo": "acme/tool", "account": {"login": "bot", "token_env": "T"}}
    return Config.model_validate(data | {"allowed_users": ["alice"], "commands": {"test": "true"}})


def _mark(root: Path, name: str) -> str:
    path = root / "planted" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(MARK.format(marks=root / "marks"))
    path.chmod(0o755)
    return str(path)


def _machine_config(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The machine's user defines drivers by the names the person's attributes use (as
    git-lfs's `filter.lfs` is defined in many users' config): Conveyor's git reads none."""
    home = root / "home"
    (home / ".config" / "git").mkdir(parents=True)
    text = (
        f'[filter "evil"]\n\tclean = {_mark(root, "clean")}\n\tsmudge = {_mark(root, "smudge")}\n'
        f"\tprocess = {_mark(root, 'process')}\n"
        f'[diff "evil"]\n\ttextconv = {_mark(root, "textconv")}\n'
        f"\tcommand = {_mark(root, 'diff-command')}\n"
        f'[merge "evil"]\n\tdriver = {_mark(root, "merge-driver")}\n'
        f"[core]\n\tfsmonitor = {_mark(root, 'fsmonitor')}\n"
    )
    (home / ".gitconfig").write_text(text)
    (home / ".config" / "git" / "config").write_text(text)
    monkeypatch.setenv("HOME", str(home))


def _person_pr(root: Path) -> tuple[Path, str, str]:
    """The forge's `acme/tool` with `main` and PR #7's head, written by a hostile person: the
    forge's repository, the base's SHA and the head's."""
    bare = init_bare(root / "forge" / "tool.git", PERSON).path
    work = root / "person"
    run_git(["init", "--quiet", "--initial-branch=main", str(work)], cwd=root, env=PERSON)
    (work / "app.py").write_text("x = 1\n")
    run_git(["add", "."], cwd=work, env=PERSON)
    run_git(["commit", "--quiet", "-m", "Initial commit"], cwd=work, env=PERSON)
    base = run_git(["rev-parse", "HEAD"], cwd=work, env=PERSON).stdout.decode().strip()
    run_git(["push", "--quiet", str(bare), "HEAD:refs/heads/main"], cwd=work, env=PERSON)
    # Every attribute that names a driver, and one that marks Python as binary for diffs.
    (work / ".gitattributes").write_text("* filter=evil diff=evil merge=evil\n*.py -diff\n")
    submodule = f'[submodule "sub"]\n\tpath = sub\n\turl = ./sub\n\tupdate = !{_mark(root, "sm")}\n'
    (work / ".gitmodules").write_text(submodule)
    (work / "app.py").write_text("x = 2  # noqa\n")
    run_git(["add", "."], cwd=work, env=PERSON)
    gitlink = f"160000,{base},sub"
    run_git(["update-index", "--add", "--cacheinfo", gitlink], cwd=work, env=PERSON)
    run_git(["commit", "--quiet", "-m", "A person's change"], cwd=work, env=PERSON)
    head = run_git(["rev-parse", "HEAD"], cwd=work, env=PERSON).stdout.decode().strip()
    run_git(["push", "--quiet", str(bare), f"HEAD:refs/pull/{NUMBER}/head"], cwd=work, env=PERSON)
    return bare, base, head


def _pull(head: str, base: str) -> PullRequest:
    return PullRequest(
        number=NUMBER, id=1, node_id="PR_1", title="A change", body="", state="open",
        draft=False, merged=False, mergeable=True, mergeable_state="clean",
        head_ref="feature", head_sha=head, base_ref="main", base_sha=base, author="pat",
        html_url="", merge_commit_sha=None,
    )  # fmt: skip


def test_a_persons_pr_head_runs_nothing_and_hides_no_line_from_the_review(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The checkout and the diffs of a review run none of the drivers the person's
    attributes and `.gitmodules` name (the machine's config defines them); the person's
    `*.py -diff` hides neither the changed line from the review's diff nor its `# noqa`
    from the scan of planted silencers."""
    _machine_config(tmp_path, monkeypatch)
    bare, base, head = _person_pr(tmp_path)
    home = tmp_path / "conveyor"
    paths = JobPaths(home, "pr-7-1", home / "jobs" / "pr-7-1", home / "runs" / "issue-7")
    paths.job_dir.mkdir(parents=True)
    checkout = prepare_pr_checkout(
        paths, url=str(bare), number=NUMBER, head=head, base="main", identity=IDENTITY,
        token=None,
    )  # fmt: skip
    claimed = Claimed(_pull(head, base), head, "label", None, frozenset())
    pr_file = paths.run_dir / "issue.md"
    inputs = gather_inputs(
        _config(), checkout.repo, claimed, base_ref=checkout.base_ref, pr_file=pr_file,
        job_dir=paths.job_dir, said=PrText("", 0),
    )  # fmt: skip
    marks = tmp_path / "marks"
    assert not marks.exists(), marks.read_text()
    diff = Path(inputs.diff_file).read_text()
    assert "+x = 2  # noqa" in diff
    assert "Binary files" not in diff
    assert [s.finding.file for s in inputs.planted] == ["app.py"]
    assert (paths.checkout / "app.py").read_text() == "x = 2  # noqa\n"
