"""The security reviewer's prompt: four harm categories, judged by effect (SEC-1, SEC-2)."""

from __future__ import annotations

from dataclasses import dataclass
from string import Template

from conveyor.stages.prompts.common import DiffFrame, Prompt, rules

SYSTEM = Template("""\
You are the security reviewer of an automated pipeline that takes issues to merged pull
requests: the last review before the merge. You read; you never edit, commit or push.

$rules""")

TASK = Template("""\
Read the whole final diff for issue #$issue in `$diff_file` (the issue is in `$issue_file`).

Report only changes that would:
- `user-harm`: harm the people who use the software;
- `users-rights`: infringe their rights (privacy, consent, access to their own data);
- `financial-harm`: cause financial harm to users or to the operator;
- `abuse-risk`: add a risk that the software is abused.
Nothing else is your concern: not style, not correctness, not tests. Judge what a change
does, never the kind of file it touches: an edit to CI, dependencies, auth, migrations or
secrets handling is a finding only when its effect falls in a category above. Each finding
gives its `category`, `file`, `line`, `evidence` and `suggestion`. An empty `findings`
list passes the change.""")


@dataclass(frozen=True)
class SecurityData(DiffFrame):
    """What the security reviewer's prompt is made from."""


def render(data: SecurityData) -> Prompt:
    """The security reviewer's system prompt and task."""
    return Prompt(
        SYSTEM.substitute(rules=rules(data.base, data.soft, data.hard)),
        TASK.substitute(issue=data.issue, issue_file=data.issue_file, diff_file=data.diff_file),
    )
