"""The scheduler's spending rules: tokens per hour, money, usage limits, cool-down (BB-PAUSE)."""

from __future__ import annotations

from datetime import timedelta

from conveyor.core.state import Stage
from conveyor.orchestrator.schedule import schedule
from conveyor.orchestrator.snapshot import Ledger

from .factory import NOW, config, issue, reasons, snapshot, started


def test_each_start_carries_its_launch_charge() -> None:
    """A full review charges three lenses and the aggregator; a re-review its lenses; merge none."""
    snap = snapshot(
        issue(1, Stage.REVIEW), issue(2, Stage.REVIEW, rereview_lenses=2), issue(3, Stage.MERGE)
    )
    decisions = schedule(snap, config(max_jobs=3), NOW)
    assert {s.issue: s.charge for s in decisions.starts} == {1: 200_000, 2: 80_000, 3: 0}


def test_a_start_that_would_pass_the_hourly_tokens_is_held_before_it_spends() -> None:
    """100k per hour: two 50k triages fit, the third would pass the limit and waits."""
    snap = snapshot(issue(1), issue(2), issue(3))
    decisions = schedule(
        snap, config(max_jobs=5, readers_per_stage=5, tokens_per_hour=100_000), NOW
    )
    assert started(decisions) == [1, 2]
    assert reasons(decisions)[3].startswith("tokens-per-hour: 100000 charged this hour + 50000")


def test_the_last_hours_charges_count_against_the_hourly_tokens() -> None:
    """950k charged this hour: a 50k triage fits exactly, a 300k spec does not."""
    snap = snapshot(issue(1, Stage.SPEC), issue(2), ledger=Ledger(charges_last_hour=950_000))
    decisions = schedule(snap, config(max_jobs=5, tokens_per_hour=1_000_000), NOW)
    assert [(s.issue, s.charge) for s in decisions.starts] == [(2, 50_000)]
    assert reasons(decisions)[1].startswith("tokens-per-hour")


def test_an_hourly_limit_of_zero_is_off() -> None:
    """tokens_per_hour 0 holds nothing, however much was charged."""
    snap = snapshot(issue(1), ledger=Ledger(charges_last_hour=10**9))
    assert started(schedule(snap, config(tokens_per_hour=0), NOW)) == [1]


def test_a_spent_daily_money_budget_pauses_every_start_and_names_unknown_cost() -> None:
    """$10 a day spent: the start is held, and sessions of unknown cost are reported as such."""
    snap = snapshot(issue(1), ledger=Ledger(spent_today=10.0, unknown_cost_sessions=2))
    decisions = schedule(snap, config(money={"per_day": 10}), NOW)
    assert started(decisions) == []
    assert reasons(decisions)[1].startswith("money: spent 10.00 of 10.00 USD")
    assert "2 sessions of unknown cost counted as 0" in reasons(decisions)[1]
    assert decisions.money_paused


def test_the_money_pause_lifts_only_under_the_resume_threshold() -> None:
    """Paused at $10 with resume_percent 90: $9.50 keeps the pause, $8.90 lifts it."""
    conf = config(money={"per_day": 10, "resume_percent": 90})
    still = schedule(
        snapshot(issue(1), ledger=Ledger(spent_today=9.5), money_paused=True), conf, NOW
    )
    assert (started(still), still.money_paused) == ([], True)
    lifted = schedule(
        snapshot(issue(1), ledger=Ledger(spent_today=8.9), money_paused=True), conf, NOW
    )
    assert (started(lifted), lifted.money_paused) == ([1], False)
    fresh = schedule(snapshot(issue(1), ledger=Ledger(spent_today=9.5)), conf, NOW)
    assert started(fresh) == [1]


def test_the_provider_usage_limit_holds_starts_until_its_reset() -> None:
    """Before the reset time every start waits on usage-limit; after it, starts resume."""
    snap = snapshot(issue(1), usage_limit_until=NOW + timedelta(hours=1))
    decisions = schedule(snap, config(), NOW)
    assert reasons(decisions)[1].startswith("usage-limit: provider usage limit until")
    assert [p.kind for p in decisions.pauses] == ["usage-limit"]
    assert started(schedule(snap, config(), NOW + timedelta(hours=2))) == [1]


def test_the_cool_down_starts_nothing_new() -> None:
    """After the first Ctrl-C every would-be start is held as cool-down."""
    decisions = schedule(snapshot(issue(1), cooling_down=True), config(), NOW)
    assert reasons(decisions)[1].startswith("cool-down")
