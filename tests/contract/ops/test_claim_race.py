"""The claim race: three lanes in separate processes over the same 20 issues."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest

from conveyor.core.claims import parse_claims
from conveyor.core.invariants import IssueSnapshot, Snapshot, check_invariants
from conveyor.emulator.app.server import ForgeServer
from tests.contract.ops.race_lane import ACCOUNT, LaneSpec, run_lane
from tests.contract.ops.world import NOW, make_world

pytestmark = pytest.mark.contract
LANES = ("lane-a", "lane-b", "lane-c")
ISSUES = 20


def test_three_racing_lanes_leave_exactly_one_live_claim_per_issue(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """The race happens on many issues, each ends with one live claim, losers close with why."""
    world = make_world(forge_server, tmp_path)
    for i in range(ISSUES):
        world.owner.create_issue(f"Issue {i}", "Please do it.")
    token = forge_server.add_user(ACCOUNT)
    spawn = multiprocessing.get_context("spawn")
    barrier = spawn.Barrier(len(LANES))
    lanes = [
        spawn.Process(
            target=run_lane,
            args=(LaneSpec(forge_server.url, world.slug, token, lane, str(tmp_path)), barrier),
        )
        for lane in LANES
    ]
    for process in lanes:
        process.start()
    for process in lanes:
        process.join(timeout=240)
    for process in lanes:
        if process.is_alive():
            process.terminate()
            process.join()
    assert [p.exitcode for p in lanes] == [0, 0, 0]

    contested = 0
    snapshots = []
    for number in range(1, ISSUES + 1):
        comments = world.bot.list_comments(number).comments
        claims = parse_claims(comments, ACCOUNT)
        contested += len(claims) >= 2
        live = [c for c in claims if not c.closed]
        assert len(live) == 1, f"#{number}: live claims {live}"
        for claim in claims:
            if claim.closed:
                body = next(c.body for c in comments if c.id == claim.comment_id)
                assert "claimed the issue first" in body
        issue = world.bot.get_issue(number)
        assert issue.labels == ("agent:working",)
        snapshots.append(IssueSnapshot(number, True, issue.labels, comments))
    assert contested >= 5
    assert check_invariants(Snapshot(ACCOUNT, NOW, 3, tuple(snapshots))) == ()
