"""The dispatch table's shape: effect type to the op that carries it out, type-checked per row.

Each group of effects (`job/effects/<group>.py`) adds its rows with `rows(table)`;
`job/dispatch.py` builds the one table from all of them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from conveyor.core.state import IssueState
from conveyor.job.context import JobContext
from conveyor.job.effects.parts import BranchHeld, PushRefused, ScenarioMissing
from conveyor.stages import effects as fx

E = TypeVar("E", bound=fx.Effect)
Outcome = fx.Result | PushRefused | BranchHeld | ScenarioMissing
Op = Callable[[JobContext, IssueState, fx.Effect], Outcome]


class Dispatch:
    """The table from effect type to the op that carries it out."""

    def __init__(self) -> None:
        self._ops: dict[type[object], Op] = {}

    def on(self, kind: type[E], op: Callable[[JobContext, IssueState, E], Outcome]) -> None:
        """Carry out effects of type `kind` with `op`."""

        def run(ctx: JobContext, state: IssueState, effect: fx.Effect) -> Outcome:
            if not isinstance(effect, kind):
                msg = f"{type(effect).__name__} is not a {kind.__name__}"
                raise TypeError(msg)
            return op(ctx, state, effect)

        self._ops[kind] = run

    def kinds(self) -> frozenset[type[object]]:
        """Every effect type the table carries out."""
        return frozenset(self._ops)

    def perform(self, ctx: JobContext, state: IssueState, effect: fx.Effect) -> Outcome:
        """Carry out one effect with its op."""
        op = self._ops.get(type(effect))
        if op is None:
            msg = f"no op carries out {type(effect).__name__}"
            raise TypeError(msg)
        return op(ctx, state, effect)
