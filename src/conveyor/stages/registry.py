"""The stage registry: every stage that runs a job, mapped to its definition.

The job looks its stage up here (`definition`) instead of switching on `Stage`; a unit
test checks the map is exhaustive: every stage but `done` has exactly one definition.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from conveyor.core.state import Stage
from conveyor.stages import (
    accept,
    checks,
    fix,
    implement,
    merge,
    review,
    security,
    spec,
    sync,
    triage,
)
from conveyor.stages.stage_def import StageDef

DEFINITIONS: tuple[StageDef, ...] = (
    triage.STAGE,
    spec.STAGE,
    implement.STAGE,
    review.STAGE,
    fix.STAGE,
    sync.STAGE,
    checks.STAGE,
    accept.STAGE,
    security.STAGE,
    merge.STAGE,
)
STAGES: Mapping[Stage, StageDef] = MappingProxyType({d.stage: d for d in DEFINITIONS})
# Where an issue with no saved state begins.
FIRST: Stage = triage.STAGE.stage


def definition(stage: Stage) -> StageDef:
    """The definition of `stage`'s job; `done` has no job."""
    try:
        return STAGES[stage]
    except KeyError:
        msg = f"stage {stage.value!r} has no job"
        raise ValueError(msg) from None


def has_job(stage: Stage) -> bool:
    """Whether an issue saved at `stage` still has a job to run (`done` is the end)."""
    return stage in STAGES
