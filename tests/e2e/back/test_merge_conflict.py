"""Two issues add the same file: one merges, the other's conflict is resolved and it merges."""

from __future__ import annotations

from typing import Any

from conveyor.core.state import Stage
from conveyor.testing.world import World
from tests.e2e.back.merge_helpers import clean_back_half, fast_world
from tests.e2e.helpers import (
    IMPL,
    assert_invariants,
    implement_done,
    reply,
    spec_ready,
    triage,
)

__all__ = ["fast_world"]  # the fixture, imported for pytest

OTHER = IMPL.replace("Every item's quantity, summed.", "The quantities of all items, added up.")
# Finish the stopped rebase: take the branch's side of each conflict, continue, until done.
RESOLVE = (
    'n=0; while [ -d "$(git rev-parse --git-path rebase-merge)" ] && [ $n -lt 10 ]; do '
    "git diff --name-only --diff-filter=U | xargs -r git checkout --theirs -- ; git add -A; "
    "GIT_EDITOR=true git rebase --continue || GIT_EDITOR=true git rebase --skip; n=$((n+1)); "
    'done; test ! -d "$(git rev-parse --git-path rebase-merge)"'
)


def other_implementer(tag: str) -> dict[str, Any]:
    """An implementer whose total() reads differently from the first issue's."""
    entry = implement_done(tag)
    entry["turns"][0]["actions"][0]["write"]["content"] = OTHER
    return entry


def resolver(tag: str) -> dict[str, Any]:
    """A resolver that keeps the branch's side and finishes the rebase."""
    answer = {"status": "done", "choices": "kept this branch's total()", "summary": "resolved"}
    return {
        "tag": tag,
        "kind": "resolver",
        "turns": [{"actions": [{"run": RESOLVE}]}, reply(answer)],
    }


def test_the_second_of_two_issues_on_the_same_lines_is_resolved_and_merges(
    fast_world: World,
) -> None:
    """SYNC-2..5, MRG-4..6: A merges; B is behind, conflicts, goes to sync, is resolved, merges."""
    world = fast_world
    first, second = "samelines-a", "samelines-b"
    world.write_scenario(
        [
            *(e for t in (first, second) for e in (triage(t), spec_ready(t))),
            implement_done(first),
            other_implementer(second),
            resolver(first),
            resolver(second),
            *clean_back_half(first),
            *clean_back_half(second),
        ]
    )
    a = world.open_issue(f"Add a stock total [{first}]", "Sum the quantities of every item.")
    b = world.open_issue(f"Add a stock total too [{second}]", "Sum the quantities.")
    drives = [
        world.start("drive", "--issue", str(n), "--through", "security")
        for n in (a.number, b.number)
    ]
    for started in drives:
        out, err = started.communicate(timeout=240)
        assert started.returncode == 0, out + err
    prs: dict[int, int] = {}
    for n in (a.number, b.number):
        state = world.state(n)
        assert state is not None
        assert state.stage is Stage.MERGE
        assert state.pr is not None
        prs[n] = state.pr
    # The merge order lets the older PR go first; the other one loses the race.
    winner, loser = sorted((a.number, b.number), key=prs.__getitem__)
    content = {a.number: IMPL, b.number: OTHER}

    won = world.drive(winner)
    assert won.returncode == 0, won.stdout + won.stderr
    assert world.base_file("inventory/total.py") == content[winner]

    lost = world.drive(loser)
    assert lost.returncode == 0, lost.stdout + lost.stderr
    assert "sync job" in lost.stdout
    assert "agent:merged" in world.labels(loser)
    assert world.base_file("inventory/total.py") == content[loser]
    state = world.state(loser)
    assert state is not None
    assert (state.rounds.syncs, state.rounds.conflict_fixes) == (1, 1)
    assert_invariants(world, a.number, b.number)
