"""The demo's two issues on one line through the pipeline, in both timings the loop gives them.

`#6 [same-b]` began after `#5 [same-a]` merged in one demo run of two (a slot frees when #5's
merge ends) and stopped at checks: its implementer had written the whole file it was written
for, and same-a's test failed. Begun after the other merged, an issue's edit lands on that
change; begun together, the second to merge conflicts and its resolver keeps both.
"""

from __future__ import annotations

from typing import Any

from conveyor.cli.demo import changes
from conveyor.cli.demo.issues import ISSUES
from conveyor.cli.demo.scenario import build
from conveyor.forge.types import Issue
from conveyor.testing.world import World
from tests.e2e.back.merge_helpers import fast_world

__all__ = ["fast_world"]  # the fixture, imported for pytest

TAGS = ("same-a", "same-b")
LABELS = "inventory/labels.py"
TIMEOUT = 600


def _demo_scenario(world: World) -> None:
    """The demo's own sessions for its two same-line issues."""
    sessions: list[dict[str, Any]] = [e for e in build()["sessions"] if e["tag"] in TAGS]
    world.write_scenario(sessions)


def _open(world: World, tag: str) -> Issue:
    issue = next(i for i in ISSUES if i.tag == tag)
    return world.open_issue(issue.title, issue.body)


def _merged(world: World, number: int) -> None:
    done = world.drive(number, timeout=TIMEOUT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "agent:merged" in world.labels(number), (world.labels(number), done.stdout)


def test_same_b_begun_after_same_a_merged_merges_with_both_changes(fast_world: World) -> None:
    """The flake's timing: same-b's branch starts from main holding same-a's change; it
    merges with nothing to sync and main keeps the capitalisation."""
    world = fast_world
    _demo_scenario(world)
    first = _open(world, "same-a")
    _merged(world, first.number)
    assert world.base_file(LABELS) == changes.SAME_A
    second = _open(world, "same-b")
    _merged(world, second.number)
    assert world.base_file(LABELS) == changes.SAME_BOTH
    state = world.state(second.number)
    assert state is not None
    assert state.rounds.syncs == 0


def test_begun_together_the_second_to_merge_is_resolved_with_both_changes(
    fast_world: World,
) -> None:
    """The usual timing: both branches start from the sample; the second to merge conflicts
    on the line, and its resolver's file keeps both changes."""
    world = fast_world
    _demo_scenario(world)
    numbers = [_open(world, tag).number for tag in TAGS]
    drives = [world.start("drive", "--issue", str(n), "--through", "security") for n in numbers]
    for started in drives:
        out, err = started.communicate(timeout=TIMEOUT)
        assert started.returncode == 0, out + err
    prs = {n: state.pr for n in numbers if (state := world.state(n)) is not None}
    winner, loser = sorted(numbers, key=lambda n: prs[n] or 0)
    _merged(world, winner)
    _merged(world, loser)
    assert world.base_file(LABELS) == changes.SAME_BOTH
    state = world.state(loser)
    assert state is not None
    assert (state.rounds.syncs, state.rounds.conflict_fixes) == (1, 1)
