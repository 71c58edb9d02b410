"""Claim comments and the claim race: who holds an issue (CLAIM-10..14)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from conveyor.core.signatures import Signature, check_token
from conveyor.core.trust import CommentLike, same_login

_CLAIM = re.compile(
    r"<!-- conveyor:claim(?P<closed>-closed)? lane=(?P<lane>\S+) sweep=(?P<sweep>\S+) -->"
)
_STILL = re.compile(r"\n*Lane `[^`]*` still working at [^\n]*\n?")


@dataclass(frozen=True)
class Claim:
    """One claim comment by the pipeline's account."""

    comment_id: int
    lane: str
    sweep: str
    closed: bool
    updated_at: datetime

    def live(self, now: datetime, lease_hours: float) -> bool:
        """Open and edited within `lease_hours` (CLAIM-13)."""
        return not self.closed and now - self.updated_at < timedelta(hours=lease_hours)


def parse_claims(comments: Iterable[CommentLike], account: str) -> tuple[Claim, ...]:
    """The claim comments written by the account, oldest first; others' fakes are ignored."""
    found = []
    for comment in comments:
        match = _CLAIM.search(comment.body)
        if match and same_login(comment.author, account):
            found.append(
                Claim(
                    comment.id,
                    match["lane"],
                    match["sweep"],
                    match["closed"] is not None,
                    comment.updated_at,
                )
            )
    return tuple(sorted(found, key=lambda c: c.comment_id))


def live_claims(claims: Iterable[Claim], now: datetime, lease_hours: float) -> tuple[Claim, ...]:
    """The live claims, oldest first."""
    return tuple(c for c in claims if c.live(now, lease_hours))


def claim_body(signature: Signature, lane: str, sweep: str) -> str:
    """A new claim comment (GH-13)."""
    check_token("lane", lane)
    check_token("sweep", sweep)
    return (
        f"{signature.header()}\n<!-- conveyor:claim lane={lane} sweep={sweep} -->\n\n"
        f"Lane `{lane}` is claiming this issue.\n"
    )


def closed_body(signature: Signature, claim: Claim, why: str) -> str:
    """A claim edited to closed, saying why (CLAIM-11, CLAIM-15)."""
    return (
        f"{signature.header()}\n"
        f"<!-- conveyor:claim-closed lane={claim.lane} sweep={claim.sweep} -->\n\n"
        f"Lane `{claim.lane}` closed its claim: {why}\n"
    )


def still_working_body(body: str, lane: str, now: datetime) -> str:
    """A live claim's body with its "still working" line set to `now` (CLAIM-14)."""
    stamp = now.strftime("%Y-%m-%dT%H:%M:%SZ")
    return f"{_STILL.sub('', body).rstrip()}\n\nLane `{lane}` still working at {stamp}.\n"


def renewal_due(claim: Claim, body: str, now: datetime, lease_hours: float) -> bool:
    """Whether a release should write the "still working" line (CLAIM-14).

    When the line is missing, or the claim was last edited a twelfth of the
    lease ago (15 minutes by default): a lane finishing jobs every minute keeps
    its claim live without editing it after every one.
    """
    if _STILL.search(body) is None:
        return True
    return now - claim.updated_at >= timedelta(hours=lease_hours) / 12


def claim_wait(bounds: tuple[float, float], unit: float) -> float:
    """The wait before listing claims: `unit` in [0, 1) scaled into `bounds` (CLAIM-10)."""
    low, high = bounds
    return low + (high - low) * unit


@dataclass(frozen=True)
class Post:
    """No live claim: post one."""


@dataclass(frozen=True)
class Keep:
    """This lane's claim is the live one: keep it, post nothing (CLAIM-12)."""

    claim: Claim


@dataclass(frozen=True)
class Skip:
    """Another lane holds a live claim: pass over silently; close our own later ones."""

    holder: str
    close: tuple[Claim, ...]


def before_posting(
    claims: Iterable[Claim], lane: str, now: datetime, lease_hours: float
) -> Post | Keep | Skip:
    """What a lane does with an issue before it posts a claim (CLAIM-12)."""
    live = live_claims(claims, now, lease_hours)
    if not live:
        return Post()
    first = live[0]
    if first.lane == lane:
        return Keep(first)
    return Skip(first.lane, tuple(c for c in live if c.lane == lane))


def race_winner(claims: Iterable[Claim], own: Claim, now: datetime, lease_hours: float) -> Claim:
    """The earliest live claim, counting our own even when not listed yet (CLAIM-10)."""
    live = {c.comment_id: c for c in live_claims(claims, now, lease_hours)}
    live.setdefault(own.comment_id, own)
    return live[min(live)]
