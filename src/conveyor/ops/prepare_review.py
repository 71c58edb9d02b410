"""prepare-review: the diff a review reads, written into a file (REV-2, REV-10, FIX-2)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from conveyor.git import Repo, merge_base, rev_parse, run_git

HEADER = "# Diff under review: {what}\n# base {base} .. head {head}\n\n"


@dataclass(frozen=True)
class PreparedDiff:
    """Where the diff was written, its head and base, whether it is empty, and its files."""

    path: Path
    head_sha: str
    base_sha: str
    empty: bool
    paths: tuple[str, ...] = ()


def prepare_review(
    repo: Repo, base_ref: str, target: Path, *, since: str | None = None
) -> PreparedDiff:
    """Write the diff from the base (or, for a re-review, `since..HEAD`) to `target`.

    From the base the diff starts at the merge base of `base_ref` and HEAD, so commits the
    base gained since the branch left it are not shown as the change's.
    """
    head = rev_parse(repo, "HEAD")
    if since is None:
        start = merge_base(repo, base_ref, head) or rev_parse(repo, base_ref)
        what = "the whole change"
    else:
        start = rev_parse(repo, since)
        what = "the fix since the last review"
    done = run_git(
        ["diff", "--no-color", "--no-ext-diff", "--find-renames", f"{start}..{head}"],
        cwd=repo.path,
        env=repo.env,
    )
    body = done.stdout.decode(errors="replace")
    names = run_git(
        ["diff", "--name-only", "--no-renames", f"{start}..{head}"], cwd=repo.path, env=repo.env
    )
    paths = tuple(line for line in names.stdout.decode().splitlines() if line)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.partial")
    partial.write_text(HEADER.format(what=what, base=start, head=head) + body, encoding="utf-8")
    partial.replace(target)
    return PreparedDiff(target, head, start, not body.strip(), paths)
