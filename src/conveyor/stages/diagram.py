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
FLOWS = """
## Code and wiki flows

A change has two flows (FLOW-1): code, when the branch changes files against the base,
and wiki, when the issue's wiki branch (`agent/issue-N` on the repository's
`NAME.wiki.git`, checked out in the job's `wiki/`) has commits of its own. Every push
(open-pr, a fix, a check fix, a sync) reports both; the stage works the flows out with
`flows_of` and asks `pr_flow_action` what the PR needs (pure functions in
`conveyor.core.flows`), and one shared step, `settle-pr` (`ops/flow_step.py`), does it:

| flows | the PR | then |
| --- | --- | --- |
| code only | readied; reopened (or opened) when closed or missing | verify, CI, merge |
| wiki only | closed, with a signed note naming the wiki branch | wiki-check only; finish-wiki |
| both | readied; reopened (or opened) when closed or missing | wiki-check, verify, merge, publish |
| neither | left alone | stop `not-doable` |

finish-wiki publishes the pages on the wiki's published branch (`master` on GitHub),
closes the issue with a comment listing the published commits and sets `agent:merged`.
After a PR with wiki pages merges,
the pages are published the same way and their commits listed on the issue; pages that
no longer apply are saved as `wiki-unpushed.patch` in the run folder and the issue says so.

The spec writer writes the spec's Wiki updates in the wiki checkout (SPEC-119). A
wiki-only spec (`wiki_only`, with `no_tests_reason`) pushes its pages (`push-wiki`),
closes a PR an earlier spec opened (`close-old-pr`) and goes straight to review, with
no PR and no implementer (FLOW-10). Reviews of a wiki-only change read the wiki's diff
and are posted on the issue. A later fix that adds code reopens the PR (FLOW-7). A
repository whose wiki is off or has no page yet gets no wiki checkout (WT-11).
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
    return page(INTRO + FLOWS, drawn)
