"""Every effect a stage machine can ask for goes in one hop to the op that carries it out."""

from __future__ import annotations

from typing import get_args

from conveyor.job.dispatch import DISPATCH
from conveyor.stages.effects import Effect


def test_every_effect_type_has_exactly_one_op_in_the_table() -> None:
    """The dispatch table covers the whole `Effect` union and nothing else."""
    wanted = frozenset(get_args(Effect))
    assert len(wanted) > 25
    assert DISPATCH.kinds() == wanted
