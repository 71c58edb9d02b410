"""How each real CLI's recorded failures are classified: never the issue's, except refusals."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conveyor.agents.backends.base import StreamParser
from conveyor.agents.backends.claude import ClaudeParser
from conveyor.agents.backends.codex import CodexParser
from conveyor.agents.backends.opencode import OpencodeParser
from conveyor.agents.result_file import Watch, build_result
from conveyor.core.agent_failure import InfraKind
from conveyor.core.session import (
    FailureKind,
    SessionIdentity,
    SessionRole,
    SessionSpec,
    SessionStatus,
)

STREAMS = Path(__file__).resolve().parents[2] / "data" / "agent-streams"
RECORDED: list[dict[str, Any]] = json.loads((STREAMS / "failures.json").read_text())["streams"]
PARSERS: dict[str, type[ClaudeParser] | type[CodexParser] | type[OpencodeParser]] = {
    "claude": ClaudeParser,
    "codex": CodexParser,
    "opencode": OpencodeParser,
}


def _spec(tmp_path: Path, backend: str) -> SessionSpec:
    return SessionSpec(
        role=SessionRole.READER,
        backend="claude" if backend == "claude" else "codex" if backend == "codex" else "opencode",
        model="m",
        system_prompt="",
        task="",
        reply_model="triage",
        cwd=tmp_path,
        session_dir=tmp_path,
        session_key="k",
        identity=SessionIdentity(1, "triage", "triage"),
    )


@pytest.mark.parametrize("stream", RECORDED, ids=[f"{s['cli']}-{s['case']}" for s in RECORDED])
def test_a_recorded_failure_is_classified_as_its_cause(
    stream: dict[str, Any], tmp_path: Path
) -> None:
    """Sign-ins, limits, overloads and the network are infrastructure; a refusal is the model's."""
    parser: StreamParser = PARSERS[stream["cli"]]()
    for line in stream["lines"]:
        parser.feed(line)
    result = build_result(
        _spec(tmp_path, stream["cli"]), "m", parser.state, Watch(exit_code=1), tmp_path / "t"
    )
    if stream["expect"] == "refusal":
        assert result.infra is None
        assert result.failure is FailureKind.BEHAVIOURAL
        return
    assert result.infra is InfraKind(stream["expect"]), result.error
    assert result.failure is FailureKind.INFRASTRUCTURE
    limited = result.status is SessionStatus.RATE_LIMITED
    assert limited == (stream["expect"] == "usage-limit")
