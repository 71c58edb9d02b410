"""Infrastructure failures of the real CLIs: classified, retried only when a retry can help."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from conveyor.core.agent_failure import InfraKind
from conveyor.core.backends import BackendName
from conveyor.core.session import FailureKind, SessionStatus
from conveyor.testing.fake_model import Hangup, Reject, Script
from tests.contract.realcli.launches import environ, run, session

pytestmark = [pytest.mark.contract, pytest.mark.realcli]


def _launches(spec_dir: Path) -> int:
    """How many CLI processes the session took (its folder and its retries' folders)."""
    return len(list(spec_dir.parent.glob(f"{spec_dir.name}*")))


@pytest.mark.parametrize(
    ("backend", "status"), [("codex", 401), ("claude", 403)], ids=["codex-401", "claude-403"]
)
def test_a_refused_key_is_a_failed_sign_in_and_is_not_retried(
    backend: BackendName, status: int, clis_bin: Path, tmp_path: Path
) -> None:
    """401/403 from the provider: `auth`, one launch only (a retry meets the same key)."""
    spec = session(backend, clis_bin, tmp_path)
    result = run(spec, Script((Reject(status, "invalid x-api-key"),)), environ(backend, tmp_path))
    assert (result.status, result.failure) == (SessionStatus.FAILED, FailureKind.INFRASTRUCTURE)
    assert result.infra is InfraKind.AUTH, result.error
    assert _launches(spec.session_dir) == 1


def test_claude_with_no_credentials_at_all_is_not_signed_in(clis_bin: Path, tmp_path: Path) -> None:
    """No key and no login file: claude says so without calling anyone."""
    spec = session("claude", clis_bin, tmp_path)
    result = run(spec, None, environ("claude", tmp_path, signed_in=False))
    assert result.infra is InfraKind.AUTH, result.error
    assert "log" in (result.error or "").lower()


def test_a_usage_limit_is_not_retried_and_its_reset_is_read(clis_bin: Path, tmp_path: Path) -> None:
    """codex's `usage_limit_reached` names a reset time: the session carries it (to the minute)."""
    reset = int(time.time()) + 3 * 3600
    body = {"error": {"type": "usage_limit_reached", "message": "usage limit", "resets_at": reset}}
    step = Reject(429, "usage limit", body=json.dumps(body))
    spec = session("codex", clis_bin, tmp_path)
    result = run(spec, Script((step,)), environ("codex", tmp_path))
    assert (result.status, result.infra) == (SessionStatus.RATE_LIMITED, InfraKind.USAGE_LIMIT)
    assert result.rate_limit_reset is not None
    assert abs(result.rate_limit_reset - reset) < 120
    assert _launches(spec.session_dir) == 1


@pytest.mark.parametrize(
    ("backend", "step", "kind"),
    [
        ("claude", Reject(529, "Overloaded"), InfraKind.OVERLOADED),
        ("codex", Reject(503, "Service Unavailable"), InfraKind.OVERLOADED),
        ("codex", Hangup(), InfraKind.NETWORK),
    ],
    ids=["claude-529", "codex-503", "codex-hangup"],
)
def test_an_overload_or_a_dropped_connection_is_retried_once_then_reported(
    backend: BackendName, step: Reject | Hangup, kind: InfraKind, clis_bin: Path, tmp_path: Path
) -> None:
    """The provider's trouble: one retry (the fallback model's), then the kind it was."""
    spec = session(backend, clis_bin, tmp_path)
    result = run(spec, Script((step,)), environ(backend, tmp_path))
    assert result.infra is kind, result.error
    assert result.failure is FailureKind.INFRASTRUCTURE
    assert _launches(spec.session_dir) == 2


def test_a_missing_cli_is_reported_with_how_to_install_it(tmp_path: Path, clis_bin: Path) -> None:
    """No executable: `cli-missing`, no retry, the install hint in the error."""
    spec = session("codex", clis_bin, tmp_path, executable=str(tmp_path / "no-such-codex"))
    result = run(spec, None, environ("codex", tmp_path))
    assert result.infra is InfraKind.CLI_MISSING
    assert "npm install -g @openai/codex" in (result.error or "")
    assert _launches(spec.session_dir) == 1


def test_a_cli_that_exits_at_start_is_a_crash_retried_once(clis_bin: Path, tmp_path: Path) -> None:
    """codex refusing its command line exits before any event: `cli-crash`, its stderr said."""
    spec = session("codex", clis_bin, tmp_path, extra_args=("--sandbox", "no-such-mode"))
    result = run(spec, Script(()), environ("codex", tmp_path))
    assert result.infra is InfraKind.CLI_CRASH, result.error
    assert "--sandbox" in (result.error or ""), "its stderr is the reason given"
    assert _launches(spec.session_dir) == 2
