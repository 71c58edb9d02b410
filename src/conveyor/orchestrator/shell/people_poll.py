"""The tick's read of people's PRs for the review rule: the open PRs, who labelled each, who
asked for the account's review, the heads already reviewed, and the local records (claims,
last failure).

Only when `[pr_reviews]` turns a trigger on. The open PR list is asked with its ETag (a 304
costs no rate limit and reuses the kept list); who added a PR's label is asked again only
when the PR changed (its `updated_at`), and kept only once that stamp has settled. Who
requested the account's review is asked the same way, only with `on_request` and only for a
PR whose requested reviewers (in the list already) name the account; whether
the forge holds a review of a head (a home that lost its records) is asked once per head,
and only for `review_assigned_prs`.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path

from conveyor.core.config import Config
from conveyor.core.review_request import ReviewRequest
from conveyor.core.trust import Trust, same_login
from conveyor.forge.errors import ForgeError
from conveyor.forge.pr_types import OpenPull
from conveyor.forge.protocol import Forge
from conveyor.job.pr_review.claim import asked_by, own_pr, posted_reviews, requested_by
from conveyor.job.pr_review.record import PrRecord, read_records
from conveyor.orchestrator.people import PullView
from conveyor.orchestrator.shell.snapshot_store import SnapshotStore

ETAG_KEY = "pulls:etag"
LIST_KEY = "pulls:list"
NOBODY = "-"
# Who labelled a PR is kept only when read this long after the PR's `updated_at`. GitHub
# stamps it to the second (and its clock is not ours): a label an untrusted person removed
# and added again within the second of a read would leave the stamp, and so a kept answer
# naming the trusted person before them, unchanged. Until then it is asked at every tick.
SETTLED = timedelta(seconds=60)


def _to_json(pulls: tuple[OpenPull, ...]) -> str:
    return json.dumps([
        {**p.__dict__, "labels": list(p.labels), "requested": list(p.requested),
         "created_at": p.created_at.isoformat(), "updated_at": p.updated_at.isoformat()}
        for p in pulls
    ])  # fmt: skip


def _from_json(text: str | None) -> tuple[OpenPull, ...]:
    if not text:
        return ()
    try:
        items = json.loads(text)
        return tuple(
            OpenPull(
                **{
                    **item,
                    "labels": tuple(item["labels"]),
                    "requested": tuple(item.get("requested", ())),
                    "created_at": datetime.fromisoformat(item["created_at"]),
                    "updated_at": datetime.fromisoformat(item["updated_at"]),
                }
            )
            for item in items
        )
    except (ValueError, TypeError, KeyError):
        return ()


def open_pulls(forge: Forge, store: SnapshotStore) -> tuple[OpenPull, ...]:
    """The open PRs, from the forge or (304) as kept."""
    kept = store.kept(LIST_KEY)
    page = forge.list_open_prs(store.kept(ETAG_KEY) if kept else None)
    if page.not_modified:
        return _from_json(kept)
    store.keep(LIST_KEY, _to_json(page.pulls))
    store.keep(ETAG_KEY, page.etag or "")
    return page.pulls


def _kept(store: SnapshotStore, key: str, version: str) -> str | None:
    """What `key` keeps for `version` (a PR's update time, a head), else None."""
    kept = store.kept(key)
    if kept is None or "\t" not in kept:
        return None
    at, value = kept.split("\t", 1)
    return value if at == version else None


def _requester(
    forge: Forge, store: SnapshotStore, pull: OpenPull, label: str, now: datetime
) -> str | None:
    key, version = f"pull-label:{pull.number}", pull.updated_at.isoformat()
    who = _kept(store, key, version)
    if who is None:
        who = requested_by(forge, pull.number, label) or NOBODY
        if now - pull.updated_at >= SETTLED:
            store.keep(key, f"{version}\t{who}")
    return None if who == NOBODY else who


def _asker(
    forge: Forge, store: SnapshotStore, pull: OpenPull, account: str, now: datetime
) -> ReviewRequest | None:
    """The request for the account's review that stands, kept like the label's requester."""
    key, version = f"pull-asked:{pull.number}", pull.updated_at.isoformat()
    kept = _kept(store, key, version)
    if kept is None:
        found = asked_by(forge, pull.number, account)
        kept = NOBODY if found is None else f"{found.id} {found.by}"
        if now - pull.updated_at >= SETTLED:
            store.keep(key, f"{version}\t{kept}")
    ident, _, who = kept.partition(" ")
    return ReviewRequest(who, int(ident)) if who and ident.isdigit() else None


def _reviewed(forge: Forge, store: SnapshotStore, pull: OpenPull, trust: Trust) -> bool:
    key = f"pull-reviewed:{pull.number}"
    answer = _kept(store, key, pull.head_sha)
    if answer is None:
        heads = {r.head for r in posted_reviews(forge, pull.number, trust)}
        answer = "yes" if pull.head_sha in heads else "no"
        store.keep(key, f"{pull.head_sha}\t{answer}")
    return answer == "yes"


def _view(
    forge: Forge, store: SnapshotStore, config: Config, trust: Trust, pull: OpenPull,
    *, record: PrRecord, now: datetime,
) -> PullView:  # fmt: skip
    settings = config.pr_reviews
    own = own_pr(pull.author, pull.head_ref, trust.account)
    label = settings.label
    labeled = label is not None and any(n.casefold() == label.casefold() for n in pull.labels)
    who = _requester(forge, store, pull, label, now) if labeled and label and not own else None
    wanted = settings.on_request and not own
    requested = wanted and any(same_login(r, trust.account) for r in pull.requested)
    asked = _asker(forge, store, pull, trust.account, now) if requested else None
    heads = set(record.heads)
    assigned = settings.review_assigned_prs and not own and not pull.draft
    if assigned and pull.head_sha not in heads and _reviewed(forge, store, pull, trust):
        heads.add(pull.head_sha)
    return PullView(
        number=pull.number, created_at=pull.created_at, author=pull.author,
        head_sha=pull.head_sha, draft=pull.draft, own=own, requested_by=who,
        requester_trusted=who is not None and trust.user(who),
        author_trusted=trust.user(pull.author), reviewed_heads=frozenset(heads),
        failed_at=record.failed_at, asked=asked,
        asker_trusted=asked is not None and trust.user(asked.by),
        claimed_requests=record.requests,
    )  # fmt: skip


def people_pulls(
    forge: Forge, store: SnapshotStore, config: Config, trust: Trust, home: Path, *,
    now: datetime, pulls: tuple[OpenPull, ...] | ForgeError | None = None,
) -> tuple[PullView, ...]:  # fmt: skip
    """Every open PR as the review rule sees it (none when no trigger is configured);
    `pulls`, when given, is the tick's read of the open PRs (its failure raised here)."""
    if not config.pr_reviews.enabled:
        return ()
    listed = open_pulls(forge, store) if pulls is None else pulls
    if isinstance(listed, ForgeError):
        raise listed
    records = read_records(home)
    return tuple(
        _view(
            forge,
            store,
            config,
            trust,
            pull,
            record=records.get(pull.number, PrRecord(pull.number)),
            now=now,
        )
        for pull in listed
    )
