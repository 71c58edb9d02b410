"""The local record of reviews of a person's PR: `pr-reviews/pr-N.json` in the repository's home.

A review job writes the head it claims before its first session (BB-DISP-11: a killed job
still counts its pass), how the review ended, and when it last failed (the orchestrator
holds the PR back for `backoff_polls` poll intervals after that, BB-DISP-14). It is a
cache: what a posted review reviewed is also in the review's hidden record on the forge.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Literal

RECORDS = "pr-reviews"
Trigger = Literal["label", "request", "assigned"]
TRIGGERS: tuple[Trigger, ...] = ("label", "request", "assigned")


@dataclass(frozen=True)
class Claim:
    """One pass claimed: the head it reviews, what asked for it, by which job, and when;
    `request` the id of the review request it claimed (one request is one pass)."""

    head: str
    trigger: Trigger
    job: str
    at: datetime
    outcome: str | None = None
    request: int | None = None


@dataclass(frozen=True)
class PrRecord:
    """Every pass claimed on one PR, oldest first, and its last failure."""

    number: int
    claims: tuple[Claim, ...] = ()
    failed_at: datetime | None = None
    failure: str = ""

    @property
    def heads(self) -> frozenset[str]:
        """The heads a pass was claimed for."""
        return frozenset(c.head for c in self.claims)

    @property
    def requests(self) -> frozenset[int]:
        """The ids of the review requests a pass claimed."""
        return frozenset(c.request for c in self.claims if c.request is not None)

    def claimed(self, claim: Claim) -> PrRecord:
        """The record with one more claim (the last 50 kept)."""
        return replace(self, claims=(*self.claims, claim)[-50:])

    def ended(self, job: str, outcome: str, *, failed: datetime | None, why: str = "") -> PrRecord:
        """The record once job `job` ended with `outcome` (a failure's time and reason kept)."""
        claims = tuple(replace(c, outcome=outcome) if c.job == job else c for c in self.claims)
        if failed is None:
            return replace(self, claims=claims)
        return replace(self, claims=claims, failed_at=failed, failure=why)


def record_path(home: Path, number: int) -> Path:
    """`<home>/pr-reviews/pr-N.json`."""
    return home / RECORDS / f"pr-{number}.json"


def _when(value: object) -> datetime | None:
    return datetime.fromisoformat(value) if isinstance(value, str) else None


def _claim(item: object) -> Claim | None:
    if not isinstance(item, dict):
        return None
    head, at, outcome = item.get("head"), _when(item.get("at")), item.get("outcome")
    if not isinstance(head, str) or at is None:
        return None
    trigger: Trigger = next((t for t in TRIGGERS if t == item.get("trigger")), "assigned")
    kept = outcome if isinstance(outcome, str) else None
    request = item.get("request")
    asked = request if isinstance(request, int) and not isinstance(request, bool) else None
    return Claim(head, trigger, str(item.get("job", "")), at, kept, asked)


def _from_json(number: int, data: dict[str, object]) -> PrRecord:
    items = data.get("claims")
    claims = [c for c in map(_claim, items if isinstance(items, list) else []) if c is not None]
    failure = str(data.get("failure", ""))
    return PrRecord(number, tuple(claims), _when(data.get("failed_at")), failure)


def load_record(home: Path, number: int) -> PrRecord:
    """The PR's record (an empty one when there is none or it cannot be read)."""
    try:
        data = json.loads(record_path(home, number).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return PrRecord(number)
    return _from_json(number, data) if isinstance(data, dict) else PrRecord(number)


def save_record(home: Path, record: PrRecord) -> None:
    """Write the record atomically."""
    path = record_path(home, record.number)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = asdict(record)
    text = json.dumps(data, default=lambda v: v.isoformat() if isinstance(v, datetime) else v)
    partial = path.with_name(f".{path.name}.partial")
    partial.write_text(text + "\n", encoding="utf-8")
    partial.replace(path)


def read_records(home: Path) -> dict[int, PrRecord]:
    """Every PR's record under the home, by number."""
    found: dict[int, PrRecord] = {}
    for path in sorted((home / RECORDS).glob("pr-*.json")):
        number = path.stem.removeprefix("pr-")
        if number.isdigit():
            found[int(number)] = load_record(home, int(number))
    return found
