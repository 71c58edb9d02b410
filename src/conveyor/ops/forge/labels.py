"""Setting an issue's one agent label, creating labels on first use (GH-1, GH-4)."""

from __future__ import annotations

from collections.abc import Sequence

from conveyor.core.config_intake import Intake
from conveyor.core.labels import LabelDef, all_labels, relabel
from conveyor.forge.types import LabelSpec
from conveyor.ops.forge.context import OpContext


def spec_of(label: LabelDef) -> LabelSpec:
    """The forge's label spec of one of our labels."""
    return LabelSpec(name=label.name, color=label.colour, description=label.description)


def intake_specs(intake: Intake) -> list[LabelSpec]:
    """The labels people set for intake: the filter's, the priority label and, when sizes
    matter (`max_size` or `max_large_in_flight` set), one per size (`doctor --fix` makes them)."""
    specs = [
        LabelSpec(name, "1d76db", "Conveyor may take this issue as new work (intake.labels).")
        for name in intake.labels
    ]
    specs.append(
        LabelSpec(intake.priority_label, "d93f0b", "Conveyor takes this before other new issues.")
    )
    if intake.max_size is not None or intake.max_large_in_flight:
        specs += [
            LabelSpec(f"{intake.size_prefix}{size}", "c2e0c6", f"Size {size}: Conveyor orders"
                      " new work by size and splits what is above max_size.")
            for size in intake.sizes
        ]  # fmt: skip
    return specs


def wanted_labels(intake: Intake) -> list[LabelSpec]:
    """Every label a repository needs: the pipeline's own and the ones intake reads."""
    return [spec_of(label) for label in all_labels()] + intake_specs(intake)


def set_agent_label(
    ctx: OpContext, number: int, current: Sequence[str], target: LabelDef | None
) -> tuple[str, ...]:
    """Make `target` the issue's only agent label; the new label is added before others go.

    Adding first means the issue is never briefly without a status label, so
    no sweep can mistake it for a new one. Returns the labels afterwards.
    """
    add, remove = relabel(current, None if target is None else target.name)
    labels = list(current)
    if target is not None and add:
        ctx.forge.ensure_labels([spec_of(target)])
        labels = list(ctx.forge.add_labels(number, add))
    for name in remove:
        ctx.forge.remove_label(number, name)
        labels = [n for n in labels if n != name]
    return tuple(labels)
