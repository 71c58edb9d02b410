"""prepare-review: the diff a review reads, written into a file (REV-2, REV-10, FIX-2)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from conveyor.git import Repo, merge_base, rev_parse, run_git
from conveyor.git.keep import BETWEEN_COMMITS
from conveyor.ops.local.wiki_branch import WikiCheckout

HEADER = "# Diff under review: {what}\n# base {base} .. head {head}\n\n"
WIKI_HEADER = (
    "\n# The wiki's changes (its checkout `{dir}/`): base {base} .. head {head}\n"
    "# Pages are published to the wiki when the issue finishes.\n\n"
)


@dataclass(frozen=True)
class PreparedDiff:
    """Where the diff was written, its head and base, whether it is empty, and its files."""

    path: Path
    head_sha: str
    base_sha: str
    empty: bool
    paths: tuple[str, ...] = ()
    changed: int = 0


def wiki_section(wiki: WikiCheckout) -> tuple[str, tuple[str, ...]]:
    """The wiki checkout's own changes as a diff section (REV-2), and their paths.

    Paths carry the wiki folder (`wiki/Page.md`), as reviewers see them from the checkout.
    """
    head = rev_parse(wiki.repo, "HEAD")
    start = merge_base(wiki.repo, wiki.base_ref, head) or rev_parse(wiki.repo, wiki.base_ref)
    prefix = f"{wiki.dir}/"
    done = run_git(
        [
            *("diff", BETWEEN_COMMITS, "--text", "--no-color", "--no-ext-diff", "--find-renames"),
            f"--src-prefix=a/{prefix}",
            f"--dst-prefix=b/{prefix}",
            f"{start}..{head}",
        ],
        cwd=wiki.repo.path,
        env=wiki.repo.env,
    )
    body = done.stdout.decode(errors="replace")
    if not body.strip():
        return "", ()
    names = run_git(
        ["diff", BETWEEN_COMMITS, "--name-only", "--no-renames", f"{start}..{head}"],
        cwd=wiki.repo.path,
        env=wiki.repo.env,
    )
    paths = tuple(prefix + line for line in names.stdout.decode().splitlines() if line)
    return WIKI_HEADER.format(dir=wiki.dir, base=start, head=head) + body, paths


def prepare_review(
    repo: Repo,
    base_ref: str,
    target: Path,
    *,
    since: str | None = None,
    wiki: WikiCheckout | None = None,
    facts: str = "",
) -> PreparedDiff:
    """Write the diff from the base (or, for a re-review, `since..HEAD`) to `target`.

    From the base the diff starts at the merge base of `base_ref` and HEAD, so commits the
    base gained since the branch left it are not shown as the change's. The wiki's own
    changes follow as their own section (REV-2; a re-review sees the wiki's whole change).
    `facts` ("what this change does to the checks", `core.check_facts`) goes first, as
    comment lines, when the code changed.
    """
    head = rev_parse(repo, "HEAD")
    if since is None:
        start = merge_base(repo, base_ref, head) or rev_parse(repo, base_ref)
        what = "the whole change"
    else:
        start = rev_parse(repo, since)
        what = "the fix since the last review"
    done = run_git(
        [
            *("diff", BETWEEN_COMMITS, "--text", "--no-color", "--no-ext-diff", "--find-renames"),
            f"{start}..{head}",
        ],
        cwd=repo.path,
        env=repo.env,
    )
    body = done.stdout.decode(errors="replace")
    names = run_git(
        ["diff", BETWEEN_COMMITS, "--name-only", "--no-renames", f"{start}..{head}"],
        cwd=repo.path,
        env=repo.env,
    )
    paths = tuple(line for line in names.stdout.decode().splitlines() if line)
    wiki_body, wiki_paths = wiki_section(wiki) if wiki is not None else ("", ())
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.partial")
    shown = "".join(f"# {line}".rstrip() + "\n" for line in facts.splitlines()) if body else ""
    text = HEADER.format(what=what, base=start, head=head) + shown + ("\n" if shown else "")
    text += body + wiki_body
    partial.write_text(text, encoding="utf-8")
    partial.replace(target)
    empty = not body.strip() and not wiki_body
    changed = sum(1 for line in (body + wiki_body).splitlines()
                  if line[:1] in "+-" and not line.startswith(("+++", "---")))  # fmt: skip
    return PreparedDiff(target, head, start, empty, paths + wiki_paths, changed)
