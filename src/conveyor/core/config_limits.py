"""The config's bounds: every limit of the pipeline, tokens per role, and money budgets."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, ValidationInfo, field_validator

from conveyor.core.config_terms import PositiveInt, Role, StageName, Strict


class Limits(Strict):
    """Every bound of the pipeline, with the reference defaults (REQUIREMENTS §60)."""

    lease_hours: Annotated[float, Field(gt=0)] = 3
    claim_candidates: Annotated[int, Field(ge=1)] = 5
    claim_wait_seconds: tuple[float, float] = (5.0, 20.0)
    triage_questions: PositiveInt = 5
    triage_attempts: Annotated[int, Field(ge=1)] = 3
    spec_attempts: Annotated[int, Field(ge=1)] = 2
    spec_limit_chars: Annotated[int, Field(ge=1000)] = 12_000
    max_fix_rounds: PositiveInt = 2
    max_check_fixes: PositiveInt = 2
    max_disputes_per_finding: PositiveInt = 1
    max_syncs: PositiveInt = 3
    max_conflict_fixes: PositiveInt = 2
    max_continuations: PositiveInt = 1
    max_resumes: PositiveInt = 2
    reply_check_rounds: PositiveInt = 3
    issue_token_ceiling: PositiveInt = 2_000_000
    rebase_token_budget: PositiveInt = 500_000
    resolver_charge: PositiveInt = 100_000
    context_soft: Annotated[int, Field(gt=0)] = 150_000
    # Checked against context_soft even when left out (the default).
    context_hard: Annotated[int, Field(gt=0, validate_default=True)] = 175_000
    session_timeout_minutes: Annotated[float, Field(gt=0)] = 45
    heartbeat_silence_minutes: Annotated[float, Field(gt=0)] = 20
    ci_poll_seconds: Annotated[float, Field(gt=0)] = 30
    ci_timeout_minutes: Annotated[float, Field(gt=0)] = 30
    poll_seconds: Annotated[float, Field(gt=0)] = 60
    max_jobs: Annotated[int, Field(ge=1)] = 2
    readers_per_stage: Annotated[int, Field(ge=1)] = 2
    writers_per_stage: Annotated[int, Field(ge=1)] = 1
    # Per-stage caps overriding readers_per_stage / writers_per_stage (merge uses the
    # writers' cap); 0 means the orchestrator does not run that stage (ORC-2, ORC-17).
    stage_caps: dict[StageName, PositiveInt] = Field(default_factory=dict)
    tokens_per_hour: PositiveInt = 0
    merge_order: bool = True
    infra_retries: PositiveInt = 1

    # Field validators, not one for the table: those run beside the other keys' checks, so
    # every mistake is reported at once.
    @field_validator("claim_wait_seconds")
    @classmethod
    def _ordered(cls, value: tuple[float, float]) -> tuple[float, float]:
        low, high = value
        if not 0 <= low <= high:
            msg = f"expected [low, high] with 0 <= low <= high, got {[low, high]}"
            raise ValueError(msg)
        return value

    @field_validator("context_hard")
    @classmethod
    def _above_soft(cls, value: int, info: ValidationInfo) -> int:
        soft = info.data.get("context_soft")
        if isinstance(soft, int) and soft > value:
            msg = f"expected at least context_soft ({soft}), got {value}"
            raise ValueError(msg)
        return value


class Budgets(Strict):
    """Tokens charged to a session of each role at launch (BUD-1)."""

    triage: PositiveInt = 50_000
    spec: PositiveInt = 300_000
    implement: PositiveInt = 150_000
    review: PositiveInt = 60_000
    aggregate: PositiveInt = 20_000
    fix: PositiveInt = 100_000
    rereview: PositiveInt = 40_000
    check_fix: PositiveInt = 100_000
    accept: PositiveInt = 60_000
    security: PositiveInt = 60_000
    resolver: PositiveInt = 100_000

    def for_role(self, role: Role) -> int:
        """The launch charge of one session of `role`."""
        value: int = getattr(self, role.value)
        return value


class Money(Strict):
    """Money budgets in US dollars; None turns a budget off."""

    per_session: Annotated[float, Field(gt=0)] | None = None
    per_issue: Annotated[float, Field(gt=0)] | None = None
    per_day: Annotated[float, Field(gt=0)] | None = None
    resume_percent: Annotated[float, Field(gt=0, le=100)] = 100
