"""What the forge says at the start of a tick, read through the snapshot cache.

An idle tick is one conditional request: the open-issue list answered 304
(no rate-limit point). When the list changed, only the issues whose
`updated_at` moved have their comments re-read, each conditionally on its
ETag. Who-am-I and the collaborator answers are asked at most every ten
minutes. Everything is kept in `snapshot.sqlite`, so a restart changes none
of this.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from conveyor.core.config import Config
from conveyor.core.state_codec import Decoded, TooNew, Undecodable, find_state
from conveyor.core.trust import Trust, build_trust
from conveyor.forge.protocol import Forge
from conveyor.forge.types import Comment, Issue
from conveyor.orchestrator.shell.snapshot_store import CachedIssue, CommentHead, SnapshotStore

_MARKER = re.compile(r"<!-- conveyor:[^>]*-->")
WHOAMI = "whoami"
SAME_SECOND = timedelta(seconds=1)


@dataclass(frozen=True, slots=True)
class ForgeSnapshot:
    """The open issues (newest update first) with their decoded states, and whom to trust.

    `reread` names the issues whose comments changed (or were read for the
    first time) in this build; `not_modified` says the issue list answered 304.
    """

    issues: tuple[CachedIssue, ...]
    trust: Trust
    acting_as: str
    reread: frozenset[int]
    not_modified: bool


def comment_head(comment: Comment) -> CommentHead:
    """A comment reduced to what the rules read: author, times and its pipeline marker."""
    found = _MARKER.search(comment.body)
    body = "" if found is None else found[0]
    return CommentHead(comment.id, comment.author, body, comment.created_at, comment.updated_at)


def read_comments(
    issue: Issue, comments: tuple[Comment, ...], etag: str | None, account: str
) -> CachedIssue:
    """Decode an issue's state from its comments (TRUST-10: only the account's marked comment)."""
    lookup = find_state(comments, account)
    entry = CachedIssue(
        issue=issue,
        comments_etag=etag,
        state=lookup.state,
        state_comment_id=lookup.comment_id,
        duplicates=lookup.duplicates,
        comments=tuple(comment_head(c) for c in sorted(comments, key=lambda c: c.id)),
    )
    match lookup.outcome:
        case TooNew(version=version):
            return replace(entry, state_problem="too-new", state_detail=f"state version {version}")
        case Undecodable(reason=reason):
            return replace(entry, state_problem="undecodable", state_detail=reason)
        case Decoded() | None:
            return entry


def cached_trust(
    forge: Forge, store: SnapshotStore, config: Config, now: datetime
) -> tuple[str, Trust]:
    """Who the token acts as, and the trust rule, from answers at most ten minutes old."""
    acting = store.answer(WHOAMI, now)
    if acting is None:
        acting = forge.whoami()
        store.put_answer(WHOAMI, acting, now)
    answers: dict[str, bool] = {}
    for login in config.allowed_users:
        key = f"collaborator:{login.casefold()}"
        known = store.answer(key, now)
        if known is None:
            known = "yes" if forge.is_collaborator(login) else "no"
            store.put_answer(key, known, now)
        answers[login] = known == "yes"
    return acting, build_trust(config.account.login, config.allowed_users, answers)


def _refresh(forge: Forge, issue: Issue, cached: CachedIssue | None, account: str) -> CachedIssue:
    """The issue's entry, its comments re-read (conditionally) only when `updated_at` moved."""
    page = forge.list_comments(issue.number, None if cached is None else cached.comments_etag)
    if page.not_modified and cached is not None:
        return replace(cached, issue=issue)
    return read_comments(issue, page.comments, page.etag, account)


def _unchanged(before: CachedIssue | None, issue: Issue, newest: datetime | None) -> bool:
    """Whether the cached comments still hold without asking.

    Timestamps have whole seconds, so a change in the same second as the last
    read leaves `updated_at` as it was; only the issue updated last before that
    read can be in that second, and it is asked again (conditionally: a 304
    costs no point).
    """
    if before is None or before.issue.updated_at != issue.updated_at:
        return False
    return newest is None or issue.updated_at < newest


def _newest(entry: CachedIssue) -> tuple[datetime, int]:
    return entry.issue.updated_at, entry.issue.number


def _recheck(
    forge: Forge,
    store: SnapshotStore,
    config: Config,
    who: tuple[Trust, str],
    read_before: datetime | None,
) -> ForgeSnapshot:
    """The list answered 304: the cache holds, except for a comment edited in the second of
    the last list read (timestamps have whole seconds, so the list could not show it).

    Those issues have their comments asked again, conditionally; once the last read is a
    second past every issue's `updated_at`, an unchanged list is the only request.
    """
    cached = store.entries()
    suspects: list[CachedIssue] = []
    if read_before is not None:
        since = read_before.replace(microsecond=0) - SAME_SECOND
        until = read_before + SAME_SECOND
        suspects = [e for e in cached.values() if since <= e.issue.updated_at <= until]
    reread: set[int] = set()
    for entry in suspects:
        fresh = _refresh(forge, entry.issue, entry, config.account.login)
        if fresh.comments_etag != entry.comments_etag:
            reread.add(entry.issue.number)
        cached[entry.issue.number] = fresh
    if reread:
        store.replace(store.list_etag, list(cached.values()))
    ordered = sorted(cached.values(), key=_newest, reverse=True)
    return ForgeSnapshot(tuple(ordered), who[0], who[1], frozenset(reread), not_modified=True)


def build_snapshot(
    forge: Forge, store: SnapshotStore, config: Config, now: datetime
) -> ForgeSnapshot:
    """Read the open issues and their states, asking the forge only what changed.

    A forge error propagates and leaves the cache as it was, so the next
    tick reads the same changes again.
    """
    acting, trust = cached_trust(forge, store, config, now)
    cached = store.entries()
    page = forge.list_open_issues(store.list_etag)
    read_before = store.list_read_at
    store.note_list_read(now)
    if page.not_modified and store.list_etag is not None:
        return _recheck(forge, store, config, (trust, acting), read_before)
    account = config.account.login
    newest = max((e.issue.updated_at for e in cached.values()), default=None)
    entries: list[CachedIssue] = []
    reread: set[int] = set()
    for issue in page.issues:
        before = cached.get(issue.number)
        if _unchanged(before, issue, newest):
            assert before is not None
            entries.append(replace(before, issue=issue))
            continue
        entry = _refresh(forge, issue, before, account)
        if before is None or entry.comments_etag != before.comments_etag:
            reread.add(issue.number)
        entries.append(entry)
    store.replace(page.etag, entries)
    return ForgeSnapshot(tuple(entries), trust, acting, frozenset(reread), not_modified=False)
