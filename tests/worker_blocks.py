"""The test order for pytest-xdist's worksteal: each worker's block starts with long tests.

Worksteal hands each of N workers one contiguous block of the collection, equal in
count, and an idle worker steals from the tail of the busiest one. So a long test at
the end of a block starts late and bounds the run's wall time, and two long tests in
one block run one after the other. `worker_order` deals the long tests first to the
heads of the blocks (the longest onto the least loaded block), then fills each block
with the other tests in their collected order (a module stays together). Every test
is kept exactly once; only the order changes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

# A rough cost per test, by path prefix (first match wins): whole issues through the
# real agent CLIs are minutes, other whole issues and real-CLI sessions tens of seconds.
WHOLE_ISSUE = "tests/e2e/realcli/test_whole_issue.py"
WEIGHTS: tuple[tuple[str, float], ...] = (
    (f"{WHOLE_ISSUE}::test_a_clean_issue_merges_through_the_real_cli[opencode]", 200.0),
    (WHOLE_ISSUE, 60.0),
    ("tests/e2e/realcli/", 20.0),
    ("tests/e2e/demo/", 20.0),
    ("tests/e2e/", 10.0),
    ("tests/contract/realcli/", 5.0),
    ("tests/contract/temporal/", 5.0),
)
# Files whose tests share no module fixture: each test is dealt on its own.
SPLIT = frozenset({WHOLE_ISSUE})
# Groups weighing at least this are dealt to the heads of the blocks.
HEAVY = 10.0


@dataclass(frozen=True)
class CollectedTest:
    """One collected test: the group it runs in and its rough cost."""

    group: str
    weight: float

    @classmethod
    def of(cls, nodeid: str) -> CollectedTest:
        """The test `nodeid`: its module is its group, unless its file is in `SPLIT`."""
        path = nodeid.split("::", 1)[0]
        cost = next((cost for prefix, cost in WEIGHTS if nodeid.startswith(prefix)), 1.0)
        return cls(nodeid if path in SPLIT else path, cost)


def block_sizes(total: int, workers: int) -> list[int]:
    """The sizes of the blocks worksteal gives `workers` workers out of `total` tests."""
    sizes: list[int] = []
    left = total
    for remaining in range(workers, 0, -1):
        size = left // remaining
        sizes.append(size)
        left -= size
    return sizes


def worker_order(tests: Sequence[CollectedTest], workers: int, heavy: float = HEAVY) -> list[int]:
    """The indices of `tests` in the order to collect them for `workers` worksteal workers.

    Tests of one group (a module, or a single test in the files of `SPLIT`) stay
    together and in order, so a module-scoped fixture is set up once.
    """
    sizes = block_sizes(len(tests), workers)
    groups: dict[str, list[int]] = {}
    for index, test in enumerate(tests):
        groups.setdefault(test.group, []).append(index)
    cost = {name: sum(tests[i].weight for i in members) for name, members in groups.items()}
    blocks: list[list[int]] = [[] for _ in sizes]
    loads = [0.0] * len(sizes)
    dealt: set[int] = set()
    for name in sorted((g for g in groups if cost[g] >= heavy), key=lambda g: -cost[g]):
        members = groups[name]
        room = [k for k, size in enumerate(sizes) if len(blocks[k]) + len(members) <= size]
        if not room:
            continue
        least = min(room, key=lambda k: (loads[k], k))
        blocks[least].extend(members)
        loads[least] += cost[name]
        dealt.update(members)
    rest = iter(i for i in range(len(tests)) if i not in dealt)
    for block, size in zip(blocks, sizes, strict=True):
        block.extend(next(rest) for _ in range(size - len(block)))
    return [index for block in blocks for index in block]
