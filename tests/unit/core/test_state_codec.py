"""The state comment: round trip, size limit, duplicates, migration and refusal."""

from __future__ import annotations

import base64
import json
import zlib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conveyor.core.state import Finding, IssueState, Lease, Stage, Stopped
from conveyor.core.state_codec import (
    MAX_BODY,
    Decoded,
    StateTooLarge,
    TooNew,
    Undecodable,
    decode_state,
    encode_state,
    find_state,
    migrate,
)
from conveyor.core.stops import StopCode
from tests.unit.core.factory import ACCOUNT, T0, comment

DATA = Path(__file__).parents[2] / "data"

texts = st.text(max_size=80)
findings = st.builds(
    Finding,
    id=st.text(min_size=1, max_size=8),
    lens=texts,
    severity=st.sampled_from(["blocking", "nit"]),
    file=st.none() | texts,
    line=st.none() | st.integers(0, 10_000),
    evidence=texts,
    suggestion=texts,
    status=st.sampled_from(["open", "resolved", "disputed", "reopened"]),
    disputes=st.integers(0, 5),
)
times = st.datetimes(timezones=st.just(T0.tzinfo)).map(lambda d: d.replace(microsecond=0))
states = st.builds(
    IssueState,
    stage=st.sampled_from(Stage),
    lease=st.none() | st.builds(Lease, lane=texts, job_id=texts, at=times),
    pr=st.none() | st.integers(1, 10**6),
    head_sha=st.none() | texts,
    findings=st.lists(findings, max_size=4).map(tuple),
    continuations=st.dictionaries(st.sampled_from(Stage), st.integers(0, 4)),
    plan=st.none() | texts,
    spec=st.none() | st.text(max_size=400),
    after=st.lists(st.integers(1, 999), max_size=3).map(tuple),
    changed_paths=st.lists(texts, max_size=3).map(tuple),
    stopped=st.none()
    | st.builds(
        Stopped,
        control=st.sampled_from(StopCode),
        reason=texts,
        stage=st.sampled_from(Stage),
        at=times,
    ),
)


def hand_encoded(data: dict[str, Any], version: int) -> str:
    """A state comment body built without the codec, as an older Conveyor wrote it."""
    payload = base64.urlsafe_b64encode(zlib.compress(json.dumps(data).encode())).decode()
    return f"<!-- conveyor:state v={version} -->\n<!--\n{payload}\n-->\n"


@given(states)
def test_any_state_survives_encoding_and_decoding(state: IssueState) -> None:
    """Whatever the strings hold (`-->`, backticks, any unicode), decode(encode(s)) is s."""
    assert decode_state(encode_state(state)) == Decoded(state, 1)


def test_evidence_with_comment_terminators_stays_inside_the_hidden_comment() -> None:
    """A finding's `-->` cannot end the hidden comment early: nothing readable leaks out."""
    evil = Finding(id="f1", lens="x", severity="blocking", evidence="--> <b>hi</b> ```")
    body = encode_state(IssueState(findings=(evil,)))
    assert body.count("-->") == 2
    assert "<b>" not in body


def test_a_state_too_large_fails_naming_its_largest_fields() -> None:
    """Saving a state past 60,000 characters raises, naming the fields; nothing is cut."""
    noise = "".join(chr(0x4E00 + (i * 7919) % 20000) for i in range(40_000))
    with pytest.raises(StateTooLarge, match=r"spec \(\d+ chars") as caught:
        encode_state(IssueState(spec=noise, plan="small"))
    assert str(MAX_BODY) in str(caught.value)


def test_the_lowest_id_state_comment_by_the_account_wins_and_others_are_reported() -> None:
    """Duplicates by the account are ignored and reported; other authors' copies are not state."""
    first, second = IssueState(pr=1), IssueState(pr=2)
    comments = [
        comment(5, "visitor", encode_state(IssueState(pr=99))),
        comment(9, ACCOUNT, encode_state(second)),
        comment(7, ACCOUNT, encode_state(first)),
    ]
    lookup = find_state(comments, ACCOUNT)
    assert (lookup.comment_id, lookup.state, lookup.duplicates) == (7, first, (9,))


def test_a_state_from_a_newer_version_is_refused() -> None:
    """A v2 state is left alone: the lookup says too new and carries no state."""
    lookup = find_state([comment(3, ACCOUNT, hand_encoded({"v": 2}, 2))], ACCOUNT)
    assert lookup.outcome == TooNew(2)
    assert lookup.state is None


def test_a_garbled_state_is_undecodable() -> None:
    """A state whose payload is not base64 of zlib of JSON decodes to Undecodable."""
    body = "<!-- conveyor:state v=1 -->\n<!--\nbm90IHpsaWI=\n-->\n"
    assert isinstance(decode_state(body), Undecodable)


def test_migration_runs_each_step_from_the_old_version() -> None:
    """A v0 document goes through the v0 step and comes out at the target version."""
    steps = {0: lambda d: {"stage": d["phase"]}}
    assert migrate({"phase": "review"}, 0, steps, target=1) == {"stage": "review", "v": 1}


def test_a_missing_migration_step_is_an_error() -> None:
    """Migrating from a version with no step fails naming that version."""
    with pytest.raises(ValueError, match="version 0"):
        migrate({}, 0, {}, target=1)


def test_the_kept_v1_state_still_decodes() -> None:
    """tests/data/state-v1.json, written by the first version, decodes into today's model."""
    data = json.loads((DATA / "state-v1.json").read_text())
    outcome = decode_state(hand_encoded(data, 1))
    assert isinstance(outcome, Decoded)
    assert outcome.state.stopped is not None
    assert outcome.state.stopped.control is StopCode.REVIEW_ROUNDS
    assert outcome.state.findings[0].evidence == data["findings"][0]["evidence"]
