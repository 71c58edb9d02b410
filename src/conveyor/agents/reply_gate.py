"""What the MCP tools do, without MCP: validate and check replies, write reply.json, commit."""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conveyor.agents.control import ControlError, refused_paths, request_control
from conveyor.core.replies import validate_reply
from conveyor.core.session import SessionRole

REPLY_FILE = "reply.json"
FINDINGS_FILE = "reply-findings.json"


@dataclass(frozen=True)
class ToolAnswer:
    """A tool's answer: its text, and whether the session must treat it as an error."""

    text: str
    error: bool = False
    data: dict[str, Any] | None = None


@dataclass
class ReplyGate:
    """One session's gate: counts quick-check rounds and accepts at most one reply."""

    session_dir: Path
    reply_model: str
    role: SessionRole
    session_key: str = ""
    control_socket: Path | None = None
    checkout: Path | None = None
    check_rounds: int = 3
    rounds: int = 0
    accepted: bool = False
    last_findings: list[str] = field(default_factory=list)

    def submit(self, data: dict[str, Any]) -> ToolAnswer:
        """`submit_reply`: schema first, then the job's quick checks, then reply.json."""
        if self.accepted:
            return ToolAnswer("A reply was already accepted; end the session now.", error=True)
        checked = validate_reply(self.reply_model, data)
        if checked.reply is None:
            lines = "\n".join(f"- {f}" for f in checked.findings)
            text = f"The reply does not match the {self.reply_model} schema; fix and resubmit:\n"
            return ToolAnswer(text + lines, error=True)
        reply = checked.reply.model_dump(mode="json")
        findings = self._quick_check(reply)
        if findings and self.rounds < self.check_rounds:
            self.rounds += 1
            self.last_findings = findings
            lines = "\n".join(f"- {f}" for f in findings)
            text = f"Quick checks found problems (round {self.rounds} of {self.check_rounds}):\n"
            return ToolAnswer(text + lines + "\nFix them and submit again.", error=True)
        _write_json(self.session_dir / REPLY_FILE, reply)
        if findings:
            _write_json(self.session_dir / FINDINGS_FILE, {"findings": findings})
        self.accepted = True
        note = f" Findings recorded: {len(findings)}." if findings else ""
        return ToolAnswer(f"Reply accepted.{note} End the session now.", data=reply)

    def _quick_check(self, reply: dict[str, Any]) -> list[str]:
        """The job's findings; none when it cannot be reached or the check fails (SPEC-95)."""
        if self.control_socket is None or reply.get("status") == "handoff":
            return []
        request = {"op": "check-reply", "session": self.session_key, "reply": reply}
        try:
            answer = request_control(self.control_socket, request)
        except ControlError:
            return []
        found = answer.get("findings")
        if not answer.get("ok") or not isinstance(found, list):
            return []
        return [str(f) for f in found]

    def commit(self, paths: list[str], message: str) -> ToolAnswer:
        """`commit`: writers only; refused paths never reach the job."""
        if self.role is not SessionRole.WRITER:
            return ToolAnswer("commit: this session is read-only.", error=True)
        if not paths or not message.strip():
            return ToolAnswer("commit: give at least one path and a message.", error=True)
        if self.checkout is not None and (refused := refused_paths(self.checkout, paths)):
            return ToolAnswer("commit refused:\n" + "\n".join(f"- {r}" for r in refused), True)
        if self.control_socket is None:
            return ToolAnswer("commit: no control socket; commit with git instead.", error=True)
        request = {"op": "commit", "session": self.session_key, "paths": paths, "message": message}
        try:
            answer = request_control(self.control_socket, request)
        except ControlError as exc:
            return ToolAnswer(f"commit: the job did not answer ({exc}).", error=True)
        if not answer.get("ok"):
            return ToolAnswer(f"commit refused: {answer.get('error', 'no reason given')}", True)
        return ToolAnswer(f"Committed {answer.get('sha', '')}".strip(), data=answer)


def _write_json(path: Path, data: object) -> None:
    """Write atomically: a temporary file in the same folder, then a rename."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(fd, "w") as handle:
        json.dump(data, handle, indent=2)
        handle.write("\n")
    Path(tmp).replace(path)


def read_accepted(session_dir: Path) -> tuple[dict[str, Any] | None, tuple[str, ...]]:
    """The accepted reply in `reply.json` (None when absent or unreadable) and its findings."""
    try:
        reply = json.loads((session_dir / REPLY_FILE).read_text())
    except (OSError, ValueError):
        return None, ()
    try:
        found = json.loads((session_dir / FINDINGS_FILE).read_text()).get("findings", [])
    except (OSError, ValueError, AttributeError):
        found = []
    return (reply if isinstance(reply, dict) else None), tuple(str(f) for f in found)
