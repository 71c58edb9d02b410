"""`docs/stages.md`: each stage machine's table drawn as a mermaid state diagram."""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import TypeVar

from conveyor.stages import implement_table, spec_table, triage

P = TypeVar("P", bound=StrEnum)
E = TypeVar("E", bound=StrEnum)

INTRO = """\
# Stage machines

Each front-half stage is a pure state machine: a table of phases and the events that
move between them, and one `transition(memory, result) -> Step` that looks the event
up (there is no default branch; an event a phase has no exit for is a bug and raises).
A phase either asks the job for one effect (a session, an op, a comment) or is an end:
saved at the next stage, stopped with a control code, released, asked or split.

This page is generated from the tables in `conveyor.stages`; a test keeps it current.
"""


def _node(phase: StrEnum) -> str:
    return phase.name.lower()


def mermaid(exits: Mapping[P, Mapping[E, P]], start: P) -> str:
    """One table as a mermaid `stateDiagram-v2`; ends lead to the final state."""
    lines = ["stateDiagram-v2", f"    [*] --> {_node(start)}"]
    for phase, out in exits.items():
        lines.append(f"    {_node(phase)} : {phase.value}")
        for event, target in out.items():
            lines.append(f"    {_node(phase)} --> {_node(target)} : {event.value}")
        if not out:
            lines.append(f"    {_node(phase)} --> [*]")
    return "\n".join(lines)


def page(intro: str, drawn: tuple[tuple[str, str], ...]) -> str:
    """A page of diagrams: the intro, then each titled diagram in a mermaid block."""
    parts = [intro]
    for title, diagram in drawn:
        parts += [f"## {title}", "", "```mermaid", diagram, "```", ""]
    return "\n".join(parts)


def stages_markdown() -> str:
    """The whole page."""
    drawn = (
        ("Triage", mermaid(triage.EXITS, triage.Phase.START)),
        ("Spec", mermaid(spec_table.EXITS, spec_table.Phase.START)),
        ("Implement and open-pr", mermaid(implement_table.EXITS, implement_table.Phase.START)),
    )
    return page(INTRO, drawn)
