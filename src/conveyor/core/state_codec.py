"""The state comment: encoding, decoding, migration and which comment is the state (GH-6..10)."""

from __future__ import annotations

import base64
import binascii
import json
import re
import zlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from conveyor.core.state import STATE_VERSION, IssueState
from conveyor.core.trust import CommentLike, same_login

MAX_BODY = 60_000
MAX_JSON = 5_000_000  # a decompression bomb stops here
STATE_MARK = re.compile(r"<!-- conveyor:state v=(\d+) -->")
_PAYLOAD = re.compile(r"<!--\s*([A-Za-z0-9_-]+=*)\s*-->")
NOTE = "Conveyor keeps this issue's state in this comment. Please do not edit it."

Json = dict[str, Any]
# version -> function turning that version's JSON into the next version's
MIGRATIONS: Mapping[int, Callable[[Json], Json]] = {}


class StateTooLarge(ValueError):
    """The encoded state passes the comment limit; nothing is ever truncated."""


def encode_state(state: IssueState) -> str:
    """The state comment's body: marker, note, and the state as base64url(zlib(JSON))."""
    raw = state.model_dump_json().encode()
    payload = base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode()
    body = f"<!-- conveyor:state v={STATE_VERSION} -->\n{NOTE}\n<!--\n{payload}\n-->\n"
    if len(body) > MAX_BODY:
        sizes = {
            name: len(json.dumps(value)) for name, value in state.model_dump(mode="json").items()
        }
        largest = sorted(sizes, key=lambda n: sizes[n], reverse=True)[:3]
        named = ", ".join(f"{n} ({sizes[n]} chars of JSON)" for n in largest)
        msg = f"state comment would be {len(body)} characters (limit {MAX_BODY}); largest: {named}"
        raise StateTooLarge(msg)
    return body


def is_state_body(body: str) -> bool:
    """Whether a body carries the state marker."""
    return STATE_MARK.search(body) is not None


@dataclass(frozen=True)
class Decoded:
    """A state that decoded (migrated from `from_version` when older)."""

    state: IssueState
    from_version: int


@dataclass(frozen=True)
class TooNew:
    """A state written by a newer Conveyor: left alone, never rewritten."""

    version: int


@dataclass(frozen=True)
class Undecodable:
    """A state comment that does not decode; the issue stops with `error`."""

    reason: str


Outcome = Decoded | TooNew | Undecodable


def migrate(
    data: Json,
    version: int,
    migrations: Mapping[int, Callable[[Json], Json]] = MIGRATIONS,
    target: int = STATE_VERSION,
) -> Json:
    """Bring an older version's JSON up to `target`, one step at a time."""
    while version < target:
        step = migrations.get(version)
        if step is None:
            msg = f"no migration from state version {version}"
            raise ValueError(msg)
        data = step(data)
        version += 1
    return {**data, "v": target}


def decode_state(body: str) -> Outcome:
    """Read a state comment's body."""
    mark = STATE_MARK.search(body)
    if mark is None:
        return Undecodable("no state marker")
    version = int(mark[1])
    if version > STATE_VERSION:
        return TooNew(version)
    found = _PAYLOAD.search(body, mark.end())
    if found is None:
        return Undecodable("no encoded payload after the marker")
    try:
        packed = base64.urlsafe_b64decode(found[1])
        inflater = zlib.decompressobj()
        raw = inflater.decompress(packed, MAX_JSON)
        if inflater.unconsumed_tail:
            return Undecodable(f"payload inflates past {MAX_JSON} bytes")
        data = json.loads(raw)
    except (binascii.Error, zlib.error, ValueError) as exc:
        return Undecodable(f"payload does not decode: {exc}")
    if not isinstance(data, dict):
        return Undecodable("payload is not a JSON object")
    try:
        state = IssueState.model_validate(migrate(data, version))
    except (ValidationError, ValueError) as exc:
        return Undecodable(f"payload is not a valid v{version} state: {exc}")
    return Decoded(state, version)


@dataclass(frozen=True)
class StateLookup:
    """Which comment is the state, what it says, and the ignored duplicates."""

    comment_id: int | None
    outcome: Outcome | None
    duplicates: tuple[int, ...]

    @property
    def state(self) -> IssueState | None:
        """The decoded state, when there is one that decoded."""
        return self.outcome.state if isinstance(self.outcome, Decoded) else None


def find_state(comments: Iterable[CommentLike], account: str) -> StateLookup:
    """The state: the lowest-id comment by the account with the marker (TRUST-10).

    Marker comments by anyone else are not state at all; further ones by the
    account are duplicates, ignored and reported.
    """
    ours = sorted(
        (c for c in comments if same_login(c.author, account) and is_state_body(c.body)),
        key=lambda c: c.id,
    )
    if not ours:
        return StateLookup(None, None, ())
    first, *rest = ours
    return StateLookup(first.id, decode_state(first.body), tuple(c.id for c in rest))
