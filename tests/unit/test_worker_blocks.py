"""The worksteal test order: every test kept once, long tests at the heads of the blocks."""

from __future__ import annotations

from tests.worker_blocks import CollectedTest, block_sizes, worker_order


def _tests(spec: list[tuple[str, float]]) -> list[CollectedTest]:
    return [CollectedTest(group, weight) for group, weight in spec]


def test_the_blocks_are_the_sizes_worksteal_hands_out() -> None:
    """Ten tests on four workers: blocks of 2, 2, 3 and 3 that add up to ten."""
    assert block_sizes(10, 4) == [2, 2, 3, 3]


def test_every_test_is_kept_exactly_once() -> None:
    """The order is a permutation of the collected tests."""
    tests = _tests([(f"m{i % 7}", float(i % 13)) for i in range(100)])
    assert sorted(worker_order(tests, 4)) == list(range(100))


def test_the_long_tests_start_their_blocks_on_different_workers() -> None:
    """Three long tests collected last each open a different worker's block."""
    tests = _tests([("short", 1.0)] * 9 + [("a", 200.0), ("b", 60.0), ("c", 60.0)])
    order = worker_order(tests, 4)
    heads = [order[start] for start in (0, 3, 6, 9)]
    assert {9, 10, 11} <= set(heads)


def test_a_module_stays_together_in_its_collected_order() -> None:
    """A heavy module's tests (one module fixture) land in one block, in order."""
    tests = _tests([("short", 1.0)] * 6 + [("demo", 10.0)] * 3)
    order = worker_order(tests, 3)
    where = [order.index(i) for i in (6, 7, 8)]
    assert where == [where[0], where[0] + 1, where[0] + 2]
    assert where[0] // 3 == where[2] // 3
