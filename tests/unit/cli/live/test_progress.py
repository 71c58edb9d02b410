"""The progress line's counts: every issue known counted exactly once (property-tested)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conveyor.cli.live.progress import count_progress, progress_line

ISSUES = st.frozensets(st.integers(min_value=1, max_value=30), max_size=12)


@given(named=ISSUES, finished=ISSUES, running=ISSUES, stopped=ISSUES, queued=ISSUES)
def test_every_issue_named_anywhere_is_counted_once(
    named: frozenset[int],
    finished: frozenset[int],
    running: frozenset[int],
    stopped: frozenset[int],
    queued: frozenset[int],
) -> None:
    """N is the union of every source; a running job counts as in flight whatever else says."""
    counted = count_progress(
        named=named, finished=finished, running=running, stopped=stopped, queued=queued
    )
    assert counted.total == len(named | finished | running | stopped | queued)
    assert counted.in_flight == len(running)
    assert counted.done == len(finished - running - stopped - queued)


def test_the_line_names_the_stopped_only_when_there_are_some() -> None:
    """`done · in flight · waiting of N`, with `stopped` between when any issue is stopped."""
    calm = count_progress(named=[1, 2, 3], finished=[1], running=[2], stopped=[], queued=[])
    assert progress_line(calm) == "progress: 1 done · 1 in flight · 1 waiting of 3"
    halted = count_progress(named=[1, 2], finished=[], running=[], stopped=[2], queued=[1])
    assert progress_line(halted) == "progress: 0 done · 0 in flight · 1 waiting · 1 stopped of 2"
