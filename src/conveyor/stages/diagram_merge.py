"""`docs/stages-merge.md`: the checks, sync and merge tables drawn as mermaid state diagrams."""

from __future__ import annotations

from conveyor.stages import checks, merge, sync
from conveyor.stages.diagram import mermaid, page

INTRO = """\
# Stage machines: checks, sync and merge

The last stages before a merge, drawn from their tables in `conveyor.stages` (a test
keeps this page current). checks verifies the head and reads the CI gate (a pending gate
is a hold: the issue is saved at checks with `ci_wait`); a red check gets the CI fixer.
sync rebases onto the base and, on a conflict, runs the resolver; every end but success
first restores the branch. merge has no model: merge order, behind three ways, the
tests-only path once per job, the squash at the verified SHA, and the close-out.

A stacked issue (see "Stacked branches" in `docs/stages.md`) syncs its own commits only:
onto its prerequisite P's head while P is open, onto the base once P merged, when the
sync also clears `stacked_on` and bases the PR on the base again. At merge it first
reads P (`stacked-on`): queued, released at merge, while P is open where the branch was
put on it (MRG-11); when P moved or merged the branch is behind, and takes the
tests-only path (its own commits rebased, tests re-run, then queued again while P is
open) or, for a head that did not pass everything, goes back to sync. Neither counts
towards `max_syncs`.

After a handover (`handover.merge = "person"`, issue 48) the issue waits at `approved`
and the orchestrator's handed-over rule (`orchestrator/handed.py`) watches its PR:

- **A person merged it**: a merge job starts (`start --> hand_over : landed`): the
  hand-over effect reads the PR as merged, and the issue is closed out exactly as after
  Conveyor's own merge (the wiki published, the merger's comment naming who merged, the
  issue closed if the merge left it open, `agent:merged`, teardown, a split parent closed
  once every sub-issue is, stacked successors following as on any merge), and ends `done`.
- **A person closed it unmerged**: the issue stops `pr-closed`. Removing
  `agent:stopped-pr-closed` restarts it at merge: the branch is checked against the base,
  the PR reopened and handed over again. Closing the issue too ends it there.
- **Someone pushed to its branch after the handover** (the open PR's head is not the head
  Conveyor verified and handed over): the issue stops `branch-changed`, as a push to the
  branch mid-pipeline does. A note alone would leave `agent:approved` on commits nobody
  verified, and re-verifying at once would race a person still pushing and spend model
  time on a PR a person has taken over; the stop takes the approval off where everyone
  sees it and lets the person say when they are done. Removing the label reviews their
  head from scratch, then verify, CI, acceptance and the security review run again before
  a new handover. A person who merges the PR anyway still ends the issue merged; the
  closing comment says which head Conveyor verified and that the merged one is not it.
"""


def merge_markdown() -> str:
    """The whole page."""
    drawn = (
        ("Checks", mermaid(checks.table.EXITS, checks.table.Phase.START)),
        ("Sync", mermaid(sync.table.EXITS, sync.table.Phase.START)),
        ("Merge", mermaid(merge.table.EXITS, merge.table.Phase.START)),
    )
    return page(INTRO, drawn)
