"""`docs/stages.md`: the shape of a stage, the registry, and the first stages' tables drawn."""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import TypeVar

from conveyor.stages import implement, spec, triage
from conveyor.stages.registry import DEFINITIONS

P = TypeVar("P", bound=StrEnum)
E = TypeVar("E", bound=StrEnum)

INTRO = """\
# Stage machines

Each stage is a pure state machine: a table of phases and the events that move between
them, and one `transition(memory, result) -> Step` that looks the event up (there is no
default branch; an event a phase has no exit for is a bug and raises). A phase either
asks the job for one effect (a session, an op, a comment) or is an end: saved at the
next stage, stopped with a control code, released, asked or split.

This page is generated from the tables and the stage registry in `conveyor.stages`; a
test keeps it current. The checks, sync and merge diagrams are in `docs/stages-merge.md`.

## The shape of a stage

Every stage has the same three parts: its **table** (the `Phase` and `Event` enums, the
exits between phases, and the memory dataclass), its **classify** (which event a result
is in the current phase, and the memory it leaves) and its **acts** (the effect each
phase asks for, each end's value, and the `Table` that joins them). A stage that fits
300 lines is one module, `stages/<stage>.py`, in that order; a larger one is a package
with the same fixed modules:

| module | holds |
| --- | --- |
| `stages/<stage>/table.py` | `Phase`, `Event`, `EXITS`, `ENDS`, the memory dataclass |
| `stages/<stage>/acts.py` | the act functions and `TABLE` |
| `stages/<stage>/__init__.py` | `classify`, `MACHINE`, `start`, `transition`, `STAGE` |

A package's `__init__` re-exports the table's and acts' names, so `stages.<stage>.X`
reads the same either way. Packages: spec, implement, review, fix, checks, sync and
merge. Modules: triage, accept and security (acceptance and security share one table
and classify, `stages/judging.py`, and add their own acts). Long prose stays beside
them: the prompts (`stages/prompts/`), `spec_text.py` and `review_text.py`. The shared
plumbing is `machine.py` (the machine), `step.py` (ends and inputs), `writer.py` (a
writer session's reply) and `effects*.py`.

## The stage registry

Each stage exposes one `STAGE: StageDef` (`stages/stage_def.py`, a frozen dataclass):
its `Stage`, its `MACHINE`, the job's role (`READER` only reads, `WRITER` pushes,
`MERGER` merges: JB-2), the config role whose agent and budget its main session uses
(and its commits' `Pipeline-Agent:` trailer), whether the job first rebuilds `spec.md`
from the signed spec comment, whether its start is measured from the fork point (the
spec's own commits; its commit scope check also runs in the session) and the reply check
a session runs before it ends (`QuickCheck`: the reply's schema, then the stage's rules).
`stages/registry.py` maps every stage with a job to its definition; `done` has none. The
job reads it instead of switching on `Stage`: the runner drives `definition(stage).machine`,
`job/roles.py` reads the roles, the check-reply handler reads `quick_check`.

"""
FLOWS = """
## Code and wiki flows

A change has two flows (FLOW-1): code, when the branch changes files against the base,
and wiki, when the issue's wiki branch (`agent/issue-N` on the repository's
`NAME.wiki.git`, checked out in the job's `wiki/`) has commits of its own. Every push
(open-pr, a fix, a check fix, a sync) reports both; the stage works the flows out with
`flows_of` and asks `pr_flow_action` what the PR needs (pure functions in
`conveyor.core.flows`), and one shared step, `settle-pr` (`ops/forge/flow_step.py`), does it:

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


def registry_table() -> str:
    """The registry as a table: each stage's job role, agent role and what the job does first."""
    lines = [
        "| stage | job role | agent role | restores spec.md | measures its start | reply check |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for d in DEFINITIONS:
        check = d.quick_check.schema if d.quick_check else "-"
        first = ("yes" if d.restores_spec else "-", "yes" if d.measures_start else "-")
        row = (d.stage.value, d.job_role.value, d.agent_role.value, *first, check)
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines) + "\n"


def stages_markdown() -> str:
    """The whole page."""
    drawn = (
        ("Triage", mermaid(triage.EXITS, triage.Phase.START)),
        ("Spec", mermaid(spec.EXITS, spec.Phase.START)),
        ("Implement and open-pr", mermaid(implement.EXITS, implement.Phase.START)),
    )
    return page(INTRO + registry_table() + FLOWS, drawn) + "\n" + STACKED


STACKED = """## Stacked branches

An issue that follows another (`After #P merges.`, as a split writes it) need not wait
for P to merge. Once P has reached checks (or accept, security, merge) with no open
blocking finding, and P is not stacked itself (stacks go one level deep), the
orchestrator starts the follower's triage, spec or implement job with `--stack-on P`
(`conveyor.orchestrator.stacking`). That job saves `stacked_on = {issue: P, head_sha}`:
P's branch head, which the follower's branch starts from; a follower that already had a
branch keeps it and is stacked from where it left the base, and its next sync puts it on
P. The tables above do not change: a stacked issue runs the same machines, measuring its
own change from `stacked_on.head_sha` instead of the base (the spec's commit check and
reset, the review diff, verify and fails-before-fix, the implementation's changed paths;
STK-15), and its draft PR is based on P's branch.

| P | a stacked issue | an issue waiting on P |
| --- | --- | --- |
| before checks, with findings open, or stacked | goes on; at merge `stacked-on:#P` | `after:#P` |
| at checks or later, no open findings | goes on; at merge `stacked-on:#P` | starts on P |
| open, its head moved | restacks: a sync job, or merge's own rebase | as above |
| merged, or closed as completed | restacks onto the base, unstacked | goes on from the base |
| stopped | `after:#P:stopped` | `after:#P:stopped` |
| closed unmerged | `after:#P:closed-unmerged` | `after:#P:closed-unmerged` |

A restack replays only the issue's own commits (`git rebase --onto <target>
<stacked_on.head_sha>`), so a squash-merged P leaves none of its commits behind. From
sync, checks, accept or security the rebased head is verified, accepted and
security-reviewed again; from merge the passed head is kept and a clean rebase re-runs
only the tests (MRG-7). A restack takes nothing from `max_syncs`, and waits while P has a
job running (its saved head lags that job's pushes). Holds are ordinary
hold lines in `orchestrator.log`; stacking never stops an issue. See
`docs/stages-merge.md` for sync and merge.

A wiki-only change has no commits of its own on its code branch, so it never stacks:
it is not restacked when P moves or merges, its merge goes straight to finish-wiki
(no `stacked-on` read, no merge order), and no follower is stacked on a wiki-only P
(the follower waits `after:#P`, then starts from the base). Its `after` mark still
holds: at merge it is held `stacked-on:#P` while P is open, so its pages are published
after P merged. A stacked PR that the flow step reopens is based on P's branch again,
or on the base once P merged.
"""
