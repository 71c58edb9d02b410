"""The conflict resolver's prompt: finish the stopped rebase keeping both sides' intent (SYNC-*)."""

from __future__ import annotations

from dataclasses import dataclass
from string import Template

from conveyor.stages.prompts.common import Prompt, WriterFrame, bullet_list, continuation, rules

SYSTEM = Template("""\
You are the conflict resolver of an automated pipeline that takes issues to merged pull
requests. A rebase of the issue's branch onto the base stopped on conflicts; you finish it.

$rules""")

TASK = Template("""\
Issue #$issue's branch is being rebased onto `$base` and the rebase stopped. The issue is
in `$issue_file`. Conflicted paths:

$conflicts

Resolve each conflict keeping both sides' intent. When they contradict, keep what the base
does now and re-apply the branch's change on top as far as it still makes sense; say in
`choices` what you chose and why. Also fix code that merged cleanly but broke. Stage the
files and run `git rebase --continue` until the rebase is finished; leave no conflict
marker. Run the tests: `$test`.

Set `status` to `done`, `handoff` (with a handoff.md, when you run out of room) or
`cannot-fix` (when the rebase cannot be finished at all). `summary` says what you did.
$continuation""")


@dataclass(frozen=True)
class ResolverData(WriterFrame):
    """What the resolver's prompt is made from (it does not read the practices: SYNC-10)."""

    test: str
    conflicts: tuple[str, ...]
    continuation: int = 0


def render(data: ResolverData) -> Prompt:
    """The resolver's system prompt and task."""
    return Prompt(
        system=SYSTEM.substitute(rules=rules(data.base, data.soft, data.hard)),
        task=TASK.substitute(
            issue=data.issue,
            base=data.base,
            issue_file=data.issue_file,
            conflicts=bullet_list(data.conflicts),
            test=data.test,
            continuation=continuation(data.handoff_file, data.continuation),
        ),
    )
