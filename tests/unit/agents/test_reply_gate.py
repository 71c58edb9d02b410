"""The submit_reply and commit tools' rules, against a real control socket."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from conveyor.agents.control import ControlHandlers, refused_paths, request_control, serve_control
from conveyor.agents.reply_gate import ReplyGate
from conveyor.core.session import SessionRole

GOOD: dict[str, Any] = {
    "verdict": "pass",
    "reason": "r",
    "missing": [],
    "no_tests_reason_holds": None,
    "summary": "s",
}


@pytest.fixture
def sock(tmp_path: Path) -> Path:
    """A short socket path (Unix sockets have a length limit)."""
    return tmp_path / "c.sock"


@pytest.fixture
def requests() -> list[Mapping[str, Any]]:
    """Requests the fake job received."""
    return []


@pytest.fixture
def always_findings(sock: Path, requests: list[Mapping[str, Any]]) -> Iterator[Path]:
    """A job whose quick check always finds one problem."""

    def check(request: Mapping[str, Any]) -> dict[str, Any]:
        requests.append(request)
        return {"ok": True, "findings": ["Behaviour 2 is not covered"]}

    def commit(request: Mapping[str, Any]) -> dict[str, Any]:
        requests.append(request)
        return {"ok": True, "sha": "abc123"}

    with serve_control(sock, ControlHandlers(check_reply=check, commit=commit)):
        yield sock


def gate(tmp_path: Path, sock: Path | None, role: SessionRole = SessionRole.READER) -> ReplyGate:
    """A gate for an `accept` session."""
    return ReplyGate(tmp_path, "accept", role, "k", sock, tmp_path / "checkout")


def test_a_reply_failing_its_schema_is_never_accepted(tmp_path: Path) -> None:
    """However often it is sent, an invalid reply writes no reply.json."""
    g = gate(tmp_path, None)
    for _ in range(5):
        answer = g.submit({"verdict": "pass"})
        assert answer.error
        assert "summary" in answer.text
    assert not (tmp_path / "reply.json").exists()


def test_without_a_control_socket_a_valid_reply_is_accepted(tmp_path: Path) -> None:
    """SPEC-95: no job to ask means the reply passes as it is."""
    answer = gate(tmp_path, None).submit(GOOD)
    assert not answer.error
    assert json.loads((tmp_path / "reply.json").read_text()) == GOOD


def test_three_rounds_of_findings_then_the_reply_is_accepted_with_them_recorded(
    tmp_path: Path, always_findings: Path, requests: list[Mapping[str, Any]]
) -> None:
    """Rounds 1-3 come back with findings; the fourth submission is accepted and recorded."""
    g = gate(tmp_path, always_findings)
    for _ in range(3):
        answer = g.submit(GOOD)
        assert answer.error
        assert "Behaviour 2 is not covered" in answer.text
        assert not (tmp_path / "reply.json").exists()
    assert not g.submit(GOOD).error
    assert json.loads((tmp_path / "reply.json").read_text()) == GOOD
    recorded = json.loads((tmp_path / "reply-findings.json").read_text())
    assert recorded == {"findings": ["Behaviour 2 is not covered"]}
    assert requests[0]["op"] == "check-reply"
    assert requests[0]["reply"] == GOOD


def test_a_second_reply_after_acceptance_is_refused(tmp_path: Path) -> None:
    """The first accepted reply stands."""
    g = gate(tmp_path, None)
    g.submit(GOOD)
    assert g.submit({**GOOD, "verdict": "fail"}).error
    assert json.loads((tmp_path / "reply.json").read_text())["verdict"] == "pass"


def test_commit_refuses_readers_and_works_for_writers(
    tmp_path: Path, always_findings: Path, requests: list[Mapping[str, Any]]
) -> None:
    """Readers cannot commit; a writer's commit reaches the job with its paths and message."""
    (tmp_path / "checkout").mkdir()
    assert gate(tmp_path, always_findings).commit(["a.py"], "m").error
    answer = gate(tmp_path, always_findings, SessionRole.WRITER).commit(["a.py"], "add a")
    assert not answer.error
    assert requests[-1] == {"op": "commit", "session": "k", "paths": ["a.py"], "message": "add a"}


def test_commit_without_a_control_socket_is_an_error(tmp_path: Path) -> None:
    """No socket: the tool answers an error instead of committing."""
    (tmp_path / "checkout").mkdir()
    answer = gate(tmp_path, None, SessionRole.WRITER).commit(["a.py"], "m")
    assert answer.error
    assert "control socket" in answer.text


def test_paths_outside_the_checkout_or_in_git_are_refused(tmp_path: Path) -> None:
    """`..`, a symlink leading out, and `.git/` are refused; a plain file is not."""
    checkout = tmp_path / "checkout"
    (checkout / ".git").mkdir(parents=True)
    (checkout / "out").symlink_to(tmp_path)
    refused = refused_paths(
        checkout, ["ok.py", "../x", "out/secret", ".git/config", "sub/../.git/HEAD"]
    )
    assert [r.split(":")[0] for r in refused] == [
        "../x",
        "out/secret",
        ".git/config",
        "sub/../.git/HEAD",
    ]


def test_the_control_socket_answers_an_unknown_op_with_an_error(sock: Path) -> None:
    """An op the job does not handle is an error naming it, not a hang."""
    with serve_control(sock, ControlHandlers()):
        answer = request_control(sock, {"op": "dance"})
    assert answer["ok"] is False
    assert "dance" in answer["error"]
