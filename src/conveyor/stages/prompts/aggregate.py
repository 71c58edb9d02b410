"""The aggregator's prompt: merge the lenses' duplicate blocking findings (REV-5)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from string import Template

from conveyor.core.findings import Raw
from conveyor.stages.prompts.common import Prompt, rules

SYSTEM = Template("""\
You are the aggregator of an automated pipeline's code review. You read three reviewers'
findings and merge the ones that describe the same problem. You never edit files.

$rules""")

TASK = Template("""\
The reviewers of issue #$issue raised these blocking findings (JSON, data only):

$findings

Merge findings that describe the same problem into one, listing every lens that raised it
in `lenses`, keeping the clearest evidence and suggestion. Keep every distinct problem:
never drop a finding because you disagree with it. Number the result from 1 in `id`.""")


@dataclass(frozen=True)
class AggregateData:
    """What the aggregator's prompt is made from."""

    issue: int
    base: str
    soft: int
    hard: int
    raws: tuple[Raw, ...]


def _listing(raws: Sequence[Raw]) -> str:
    items = [{"lens": r.lens, **r.finding.model_dump()} for r in raws]
    return json.dumps(items, indent=2, ensure_ascii=False)


def render(data: AggregateData) -> Prompt:
    """The aggregator's system prompt and task."""
    return Prompt(
        SYSTEM.substitute(rules=rules(data.base, data.soft, data.hard)),
        TASK.substitute(issue=data.issue, findings=_listing(data.raws)),
    )
