"""Every effect a stage machine can ask for goes in one hop to the op that carries it out."""

from __future__ import annotations

from collections import Counter
from typing import get_args

from conveyor.job.dispatch import DISPATCH, GROUPS
from conveyor.job.effects.table import Dispatch
from conveyor.stages.effects import Effect


def _kinds_of_each_group() -> list[frozenset[type[object]]]:
    out = []
    for rows in GROUPS:
        table = Dispatch()
        rows(table)
        out.append(table.kinds())
    return out


def test_every_effect_type_has_exactly_one_op_in_the_table() -> None:
    """The dispatch table covers the whole `Effect` union and nothing else."""
    wanted = frozenset(get_args(Effect))
    assert len(wanted) > 25
    assert DISPATCH.kinds() == wanted


def test_the_groups_rows_are_the_table_each_effect_in_one_group() -> None:
    """The table is the union of the groups' rows, and no effect has a row in two groups (a
    second row would silently replace the first)."""
    groups = _kinds_of_each_group()
    assert all(groups), "a group without rows"
    twice = [kind.__name__ for kind, n in Counter(k for g in groups for k in g).items() if n > 1]
    assert twice == []
    assert frozenset().union(*groups) == frozenset(get_args(Effect))
