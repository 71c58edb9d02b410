"""The acceptance verifier's prompt: does the result do what the issue asks (ACC-*)."""

from __future__ import annotations

from dataclasses import dataclass
from string import Template

from conveyor.stages.prompts.common import DiffFrame, Prompt, rules
from conveyor.stages.prompts.review import spec_text

SYSTEM = Template("""\
You are the acceptance verifier of an automated pipeline that takes issues to merged pull
requests. The change has passed review and its checks; you judge, with fresh eyes,
whether it does what the issue asks. You read; you never edit, commit or push.

$rules""")

TASK = Template("""\
Judge the change for issue #$issue.

The issue is in `$issue_file`. $spec
The whole diff from the base is in `$diff_file`.

Give `verdict` `pass` only when the result does what the issue asks and meets every
Behaviour item of the spec. Otherwise `fail`, with `reason` saying what is missing and
`missing` listing each Behaviour item the change leaves out, word for word. When the spec
gives a reason for having no tests, set `no_tests_reason_holds` to whether it holds; else
leave it null. Judge what the issue asks, not how you would have built it.""")


@dataclass(frozen=True)
class AcceptData(DiffFrame):
    """What the acceptance verifier's prompt is made from."""

    spec: str | None = None
    spec_file: str | None = None


def render(data: AcceptData) -> Prompt:
    """The acceptance verifier's system prompt and task."""
    return Prompt(
        SYSTEM.substitute(rules=rules(data.base, data.soft, data.hard)),
        TASK.substitute(
            issue=data.issue,
            issue_file=data.issue_file,
            spec=spec_text(data.spec, data.spec_file),
            diff_file=data.diff_file,
        ),
    )
