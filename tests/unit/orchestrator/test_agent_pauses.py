"""Agent pauses: an agent CLI failing on infrastructure holds its starts, never the issue."""

from __future__ import annotations

from datetime import timedelta

from conveyor.core.agent_failure import InfraKind
from conveyor.core.config import Config
from conveyor.core.state import Stage
from conveyor.orchestrator.agent_pauses import agent_pauses
from conveyor.orchestrator.decisions import Decisions
from conveyor.orchestrator.schedule import schedule
from conveyor.orchestrator.snapshot import AgentEnd
from tests.unit.orchestrator.factory import NOW, issue, snapshot

SIGNED_OUT = AgentEnd("claude", NOW - timedelta(minutes=1), InfraKind.AUTH, "Not logged in")


def _config(review_agent: str = "claude") -> Config:
    """Claude by default, codex for the security role; review's agent as given."""
    return Config.model_validate(
        {
            "repo": "acme/widgets",
            "account": {"login": "conveyor-bot", "token_env": "CONVEYOR_TOKEN"},
            "allowed_users": ["alice"],
            "commands": {"test": "pytest -q"},
            "agents": {
                "default": {"agent": "claude"},
                "roles": {"security": {"agent": "codex"}, "review": {"agent": review_agent}},
            },
        }
    )


def _held(decisions: Decisions) -> dict[int, str]:
    return {h.issue: h.reason for h in decisions.holds}


def test_a_failed_sign_in_holds_every_start_of_that_agent_and_only_those() -> None:
    """Triage (claude) waits on agent-auth; security (codex) and merge (no agent) start."""
    snap = snapshot(
        issue(1), issue(2, Stage.SECURITY), issue(3, Stage.MERGE), agent_ends=(SIGNED_OUT,)
    )
    decisions = schedule(snap, _config(), NOW)
    assert sorted(s.issue for s in decisions.starts) == [2, 3]
    assert _held(decisions)[1].startswith("agent-auth: claude is not signed in")
    assert [p.kind for p in decisions.pauses] == ["agent-auth"]


def test_a_stage_waits_when_any_role_it_may_launch_uses_the_paused_agent() -> None:
    """Review launches review, aggregate and re-review sessions: one claude role holds it."""
    snap = snapshot(issue(1, Stage.REVIEW), agent_ends=(SIGNED_OUT,))
    assert schedule(snap, _config(review_agent="codex"), NOW).starts == ()


def test_the_pause_lapses_after_its_hold_and_the_next_start_is_the_probe() -> None:
    """Fifteen minutes after a failed sign-in one start goes ahead to try again."""
    later = NOW + timedelta(minutes=15)
    assert agent_pauses((SIGNED_OUT,), NOW) != {}
    assert agent_pauses((SIGNED_OUT,), later) == {}
    decisions = schedule(snapshot(issue(1), agent_ends=(SIGNED_OUT,)), _config(), later)
    assert [s.issue for s in decisions.starts] == [1]


def test_a_session_that_worked_lifts_the_pause() -> None:
    """The newest session of the CLI decides: one that ended well pauses nothing."""
    worked = AgentEnd("claude", NOW)
    assert agent_pauses((worked,), NOW) == {}


def test_an_overload_or_a_network_failure_holds_starts_only_briefly() -> None:
    """Two minutes for the provider's trouble, fifteen for a sign-in or a missing CLI."""
    for kind, minutes in ((InfraKind.OVERLOADED, 2), (InfraKind.NETWORK, 2),
                          (InfraKind.CLI_MISSING, 15), (InfraKind.CLI_CRASH, 5)):  # fmt: skip
        end = AgentEnd("codex", NOW, kind, "boom")
        assert "codex" in agent_pauses(
            (end,), NOW + timedelta(minutes=minutes) - timedelta(seconds=1)
        )
        assert agent_pauses((end,), NOW + timedelta(minutes=minutes)) == {}


def test_a_usage_limit_is_the_accounts_pause_not_an_agent_pause() -> None:
    """The provider's usage limit holds every role through usage_limit_until instead."""
    end = AgentEnd("claude", NOW, InfraKind.USAGE_LIMIT, "usage limit")
    assert agent_pauses((end,), NOW) == {}


def test_the_pause_line_says_what_failed_what_to_do_and_that_nothing_was_charged() -> None:
    """One line for the log, the live view and `conveyor status`."""
    (pause,) = agent_pauses((SIGNED_OUT,), NOW).values()
    assert "Not logged in" in pause.reason
    assert "conveyor doctor" in pause.reason
    assert "no issue is charged or stopped" in pause.reason
