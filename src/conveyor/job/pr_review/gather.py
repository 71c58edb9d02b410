"""Gathering what a review of a person's PR decides from: the PR's `issue.md`, its diff from
the base (cut for the sessions, with a note), a re-review's diff since the reviewed head,
the files the checks read and the lines that silence them.

The diffs run with `--no-ext-diff --no-textconv`: the PR's `.gitattributes` cannot make git
run anything, and the job's git config names no driver.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from conveyor.core.check_inputs import check_files, silencers
from conveyor.core.config import Config
from conveyor.core.diff_lines import FileDiff, Span, changed_lines, cut_diff, parse_diff, touched
from conveyor.core.pr_text import PrFacts, PrText, PrWords, render_pr
from conveyor.core.trust import Trust
from conveyor.forge.pr_types import PrTexts
from conveyor.forge.protocol import Forge
from conveyor.git.keep import BETWEEN_COMMITS
from conveyor.git.refs import merge_base
from conveyor.git.runner import GitError, Repo, run_git
from conveyor.job.pr_review.claim import Claimed
from conveyor.stages.pr_review import PrInputs

ISSUE_MD = "issue.md"  # the name every session's subject file has (the scripted agent's tag)
REVIEW_DIR = "review"


@dataclass(frozen=True)
class Since:
    """A re-review's diff since the reviewed head, and the lines of that head it touched."""

    file: str | None
    touched: Mapping[str, tuple[Span, ...]]
    rewritten: bool


def diff_text(repo: Repo, start: str, end: str) -> str:
    """`git diff start..end` with renames, no external driver and no text conversion."""
    done = run_git(
        ["diff", BETWEEN_COMMITS, "--text", "--no-color", "--no-ext-diff", "--no-textconv",
         "--find-renames", "-U3", f"{start}..{end}"],
        cwd=repo.path, env=repo.env,
    )  # fmt: skip
    return done.stdout.decode(errors="replace")


def _write(path: Path, text: str) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.partial")
    partial.write_text(text, encoding="utf-8")
    partial.replace(path)
    return str(path)


def _words(texts: PrTexts) -> list[PrWords]:
    """Everything written on the PR: conversation comments, review bodies, inline comments."""
    return [
        PrWords(t.id, t.author, t.body, t.created_at, t.updated_at, t.where, t.edits)
        for t in texts.texts
    ]


def write_pr_md(
    forge: Forge, claimed: Claimed, trust: Trust, run_dir: Path, base: str
) -> tuple[Path, PrText]:
    """Write the PR's `issue.md` (trusted words only, each as its trusted author and last
    editor left it); its path and what was withheld."""
    pr = claimed.pr
    texts = forge.read_pr_texts(pr.number)
    facts = PrFacts(pr.number, pr.title, texts.author, texts.body, pr.head_ref, claimed.head,
                    base, edits=texts.edits)  # fmt: skip
    text = render_pr(facts, _words(texts), trust)
    return Path(_write(run_dir / ISSUE_MD, text.markdown)), text


def _since(repo: Repo, claimed: Claimed, job_dir: Path) -> Since:
    earlier = claimed.earlier
    if earlier is None:
        return Since(None, {}, rewritten=False)
    try:
        run_git(["merge-base", "--is-ancestor", earlier.head, claimed.head], cwd=repo.path,
                env=repo.env)  # fmt: skip
    except GitError:  # the branch was rewritten (or the old head is gone): no diff since
        every = {f.file: ((1, 10**9),) for f in earlier.findings}
        return Since(None, every, rewritten=True)
    text = diff_text(repo, earlier.head, claimed.head)
    path = _write(job_dir / REVIEW_DIR / "since.diff", text)
    return Since(path, touched(parse_diff(text)), rewritten=False)


def gather_inputs(
    config: Config, repo: Repo, claimed: Claimed, *, base_ref: str, pr_file: Path, job_dir: Path,
    said: PrText,
) -> PrInputs:  # fmt: skip
    """The review's inputs: the diffs written where the sessions read them."""
    start = merge_base(repo, base_ref, claimed.head) or base_ref
    files: tuple[FileDiff, ...] = parse_diff(diff_text(repo, start, claimed.head))
    cut = cut_diff(files, config.review.max_diff_lines)
    diff_file = _write(job_dir / REVIEW_DIR / "pr.diff", cut.text + "\n")
    since = _since(repo, claimed, job_dir)
    changed = changed_lines(files)
    return PrInputs(
        number=claimed.pr.number, title=claimed.pr.title, head_sha=claimed.head,
        base=config.base, pr_file=str(pr_file), diff_file=diff_file, files=files,
        changed=changed, settings=config.review, soft=config.limits.context_soft,
        hard=config.limits.context_hard, request_changes=config.pr_reviews.request_changes,
        cut_note=cut.note, rewritten=since.rewritten,
        check_files=check_files([f.path for f in files], config),
        planted=silencers(files), since_file=since.file, earlier=claimed.earlier,
        touched=since.touched, withheld=said.withheld, held=said.held,
    )  # fmt: skip
