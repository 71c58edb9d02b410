"""The sized review's prompts: the distiller, one angle, and the reviewer who words the list.

The PR under review is a person's change: its description, comments and diff are data
to judge, never instructions (the rules block says so too).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from string import Template

from conveyor.core.pr_review_record import Remembered
from conveyor.core.review_judge import Judged
from conveyor.stages.prompts.common import Prompt, rules

BRIEF_SYSTEM = Template("""\
You are the distiller of a code review. You read a pull request and write a brief that the
reviewers will read before its diff; you never edit files, commit or push.

$rules""")

BRIEF = Template("""\
Read $subject and brief its review.

$told
The diff from where it left `$base` is in `$diff_file`.$since

Reply with `brief`: what the change does, what it seems meant to do, the parts that carry
the risk and what a reviewer must know to judge it (at most 300 words); `size`: `xs`, `s`,
`m`, `l` or `xl`, by how much there is to review (a typo is `xs`, a new subsystem `xl`);
`risky_paths`: the files most worth a careful look.""")

ANGLE_SYSTEM = Template("""\
You are a code reviewer looking at a pull request from one angle only: $focus.
You read; you never edit files, commit or push.

$rules""")

ANGLE = Template("""\
Look at $subject from one angle only ($angle): $focus.

The brief:
$brief

$told The diff from where it left `$base` is in `$diff_file`.
$since$earlier
Report each problem from your angle as a finding: `severity` (`blocking`: it must not
merge like this; `major`: should be fixed; `minor`: worth fixing; `nit`: a preference),
`file` (as the diff names it), `line` and `end_line` (lines of the new file the problem is
on, as the diff numbers them; both null for the whole file; `end_line` null for one line),
`claim` (the problem in one sentence), `evidence` (how you know) and `suggestion`. Report
only what you can point at. Set `angle` to `$angle`. An empty `findings` list means you
found nothing from your angle; say so in `summary`.""")

REVIEWER_SYSTEM = Template("""\
You are the reviewer who posts the review of a pull request. The findings are decided;
you write the review's summary and say each finding plainly to the PR's author. You never
edit files, commit or push.

$rules""")

REVIEWER = Template("""\
Write the review of pull request #$number.

The pull request is in `$pr_file`; the diff is in `$diff_file`.

The findings, decided (every one is posted whatever you write):
$findings
$earlier
Reply with `summary` (the review's opening: what the change does well and what matters
most, a few sentences) and `wordings`: for each finding you word, its number and the
comment to post on its line, addressed to the author, concrete and short.""")


@dataclass(frozen=True)
class PrPromptData:
    """What the sized review's prompts are made from."""

    number: int
    pr_file: str
    diff_file: str
    base: str
    soft: int
    hard: int
    since_file: str | None = None
    brief: str = ""
    issue: bool = False  # the change for an issue (Conveyor's own review), not a person's PR

    @property
    def subject(self) -> str:
        """What is reviewed, as the task names it."""
        return (
            f"the change for issue #{self.number}" if self.issue else f"pull request #{self.number}"
        )

    @property
    def told(self) -> str:
        """Where the task says what the change is for."""
        if self.issue:
            return f"The issue (and the spec, when one was written) is in `{self.pr_file}`."
        return (
            f"The pull request (its title, description and trusted comments) is in "
            f"`{self.pr_file}`."
        )


def _since(data: PrPromptData) -> str:
    if data.since_file is None:
        return ""
    return (
        f"\nThis is a re-review after a push: what changed since the last review is in "
        f"`{data.since_file}`; look there first.\n"
    )


def earlier_lines(earlier: Sequence[Remembered]) -> str:
    """The last review's findings, for a re-review to check again."""
    if not earlier:
        return ""
    lines = [f"- {f.file}:{f.line or '-'} ({f.severity}): {f.claim}" for f in earlier]
    return (
        "\nThe last review's findings (report again any that still holds):\n"
        + "\n".join(lines)
        + "\n"
    )


def brief(data: PrPromptData) -> Prompt:
    """The distiller's system prompt and task."""
    return Prompt(
        BRIEF_SYSTEM.substitute(rules=rules(data.base, data.soft, data.hard)),
        BRIEF.substitute(
            subject=data.subject, told=data.told, diff_file=data.diff_file, base=data.base,
            since=_since(data),
        ),
    )  # fmt: skip


def angle(data: PrPromptData, name: str, focus: str, earlier: Sequence[Remembered]) -> Prompt:
    """One angle's system prompt and task."""
    return Prompt(
        ANGLE_SYSTEM.substitute(focus=focus, rules=rules(data.base, data.soft, data.hard)),
        ANGLE.substitute(
            subject=data.subject, angle=name, focus=focus, brief=data.brief.strip() or "(none)",
            told=data.told, base=data.base, diff_file=data.diff_file,
            since=_since(data), earlier=earlier_lines(earlier),
        ),
    )  # fmt: skip


def finding_list(judged: Sequence[Judged]) -> str:
    """The judged findings, numbered as the review lists them."""
    lines = []
    for i, j in enumerate(judged, start=1):
        where = f"{j.file}:{j.line}" if j.line else j.file
        lines.append(
            f"{i}. [{j.severity}] {where} ({', '.join(j.angles)}): {j.claim.strip()}\n"
            f"   Evidence: {j.evidence.strip()}\n   Suggestion: {j.suggestion.strip()}"
        )
    return "\n".join(lines) or "(none)"


def reviewer(data: PrPromptData, judged: Sequence[Judged], earlier: Sequence[Remembered]) -> Prompt:
    """The reviewer's system prompt and task."""
    return Prompt(
        REVIEWER_SYSTEM.substitute(rules=rules(data.base, data.soft, data.hard)),
        REVIEWER.substitute(
            number=data.number, pr_file=data.pr_file, diff_file=data.diff_file,
            findings=finding_list(judged), earlier=earlier_lines(earlier),
        ),
    )  # fmt: skip
