"""Context watch and retry rules (CTX-2..6, BB-OUT-5) as pure functions."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conveyor.core.agent_failure import InfraKind
from conveyor.core.session import (
    ContextLimits,
    ContextOutcome,
    FailureKind,
    SessionResult,
    SessionRole,
    SessionStatus,
    Usage,
    WatchAction,
    after_context_stop,
    retry_infra,
    turn_context,
    watch,
)

LIMITS = ContextLimits(soft=150_000, hard=175_000)


def test_a_writer_past_soft_gets_one_steer() -> None:
    """Past soft, a steerable writer is steered once, then left alone until hard."""
    assert (
        watch(160_000, LIMITS, SessionRole.WRITER, steered=False, steerable=True)
        is WatchAction.STEER
    )
    assert (
        watch(160_000, LIMITS, SessionRole.WRITER, steered=True, steerable=True)
        is WatchAction.CONTINUE
    )


def test_readers_and_unsteerable_clis_are_not_steered() -> None:
    """Only writers are told to hand off, and only where the CLI can be steered."""
    assert (
        watch(160_000, LIMITS, SessionRole.READER, steered=False, steerable=True)
        is WatchAction.CONTINUE
    )
    assert (
        watch(160_000, LIMITS, SessionRole.WRITER, steered=False, steerable=False)
        is WatchAction.CONTINUE
    )


@given(st.integers(min_value=175_001, max_value=10**9), st.sampled_from(SessionRole), st.booleans())
def test_any_session_past_hard_is_stopped(context: int, role: SessionRole, steered: bool) -> None:
    """CTX-4: past hard every session stops, whatever its role or steer."""
    assert watch(context, LIMITS, role, steered=steered, steerable=True) is WatchAction.STOP


@given(st.integers(min_value=0, max_value=150_000), st.sampled_from(SessionRole))
def test_a_session_within_soft_continues(context: int, role: SessionRole) -> None:
    """Below soft nothing happens."""
    assert watch(context, LIMITS, role, steered=False, steerable=True) is WatchAction.CONTINUE


def test_turn_context_is_input_plus_cache_reads_and_writes() -> None:
    """CTX-2: output tokens do not count."""
    assert turn_context(Usage(input=1, output=1000, cache_read=10, cache_write=100)) == 111


def test_a_stopped_writer_hands_off_and_a_reader_is_retried_once() -> None:
    """CTX-4/5/6: writer → handoff; reader → one fresh retry, then failure."""
    assert after_context_stop(SessionRole.WRITER, 1) is ContextOutcome.HANDOFF
    assert after_context_stop(SessionRole.READER, 1) is ContextOutcome.RETRY
    assert after_context_stop(SessionRole.READER, 2) is ContextOutcome.FAIL


def test_only_infrastructure_failures_are_retried_within_the_allowance() -> None:
    """Behavioural failures, usage limits and failed sign-ins are never retried at once."""
    infra = SessionResult(SessionStatus.FAILED, "m", failure=FailureKind.INFRASTRUCTURE)
    behavioural = SessionResult(SessionStatus.FAILED, "m", failure=FailureKind.BEHAVIOURAL)
    limited = SessionResult(
        SessionStatus.RATE_LIMITED, "m", failure=FailureKind.INFRASTRUCTURE, rate_limit_reset=1e9
    )
    throttled = SessionResult(SessionStatus.RATE_LIMITED, "m", failure=FailureKind.INFRASTRUCTURE)
    assert retry_infra(infra, 0, 1)
    assert not retry_infra(infra, 1, 1)
    assert not retry_infra(behavioural, 0, 5)
    assert not retry_infra(limited, 0, 5)
    assert not retry_infra(throttled, 0, 1), "the agent pauses instead (BB-PAUSE-8)"
    signed_out = SessionResult(
        SessionStatus.FAILED, "m", failure=FailureKind.INFRASTRUCTURE, infra=InfraKind.AUTH
    )
    overloaded = SessionResult(
        SessionStatus.FAILED, "m", failure=FailureKind.INFRASTRUCTURE, infra=InfraKind.OVERLOADED
    )
    assert not retry_infra(signed_out, 0, 5)
    assert retry_infra(overloaded, 0, 1)


def test_total_cost_is_unknown_when_any_launch_reported_none() -> None:
    """Cost is never zero when unreported: one unknown makes the sum unknown."""
    first = SessionResult(SessionStatus.CONTEXT_STOPPED, "m", cost_usd=None, usage=Usage(input=5))
    second = SessionResult(
        SessionStatus.REPLIED, "m", cost_usd=0.5, usage=Usage(input=7), earlier=(first,)
    )
    assert second.total_cost_usd is None
    assert second.total_usage == Usage(input=12)
