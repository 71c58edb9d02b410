"""The wiki-check op (no model, CHK-9): the issue's changed wiki pages, checked at the head.

The issue's own changes are those since the wiki's published branch and HEAD parted;
the rules are `conveyor.core.wiki_links`. Findings name the page, one per line.
"""

from __future__ import annotations

from conveyor.core.wiki_links import is_page, wiki_findings
from conveyor.git import merge_base, read_blob, read_tree, run_git
from conveyor.git.keep import BETWEEN_COMMITS
from conveyor.ops.local.wiki_branch import WikiCheckout


def _changes(wiki: WikiCheckout, since: str) -> tuple[list[str], list[str]]:
    """The files changed since `since` (added or edited) and those added."""
    out = run_git(
        ["diff", BETWEEN_COMMITS, "--name-status", "--no-renames", "-z", since, "HEAD"],
        cwd=wiki.repo.path,
        env=wiki.repo.env,
    )
    fields = out.stdout.decode(errors="surrogateescape").split("\0")
    changed: list[str] = []
    added: list[str] = []
    for status, path in zip(fields[::2], fields[1::2], strict=False):
        if status in ("A", "M", "T"):
            changed.append(path)
        if status == "A":
            added.append(path)
    return changed, added


def check_wiki(wiki: WikiCheckout) -> tuple[str, ...]:
    """wiki-check on the wiki checkout's HEAD: empty when every rule holds."""
    since = merge_base(wiki.repo, wiki.base_ref, "HEAD") or wiki.base_ref
    changed, added = _changes(wiki, since)
    if not changed:
        return ()
    paths = [entry.path for entry in read_tree(wiki.repo, "HEAD")]
    texts = {
        path: read_blob(wiki.repo, "HEAD", path).decode("utf-8", errors="replace")
        for path in paths
        if is_page(path)
    }
    return wiki_findings(texts, paths, changed, added)
