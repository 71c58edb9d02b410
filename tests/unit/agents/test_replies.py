"""Reply models: strict schemas, findings that name the field, the handoff reply."""

from __future__ import annotations

from typing import Any

import pytest

from conveyor.core.replies import SpecReply, reply_names, reply_schema, validate_reply
from conveyor.core.session import handoff_reply

KINDS = (
    "triage", "spec", "implement", "review", "rereview", "aggregate", "fix", "check_fix",
    "accept", "security", "resolver",
)  # fmt: skip


def loose_objects(node: Any, where: str = "$") -> list[str]:
    """Every object schema that is not closed or does not require all its properties."""
    found: list[str] = []
    if isinstance(node, dict):
        if node.get("type") == "object":
            props = set(node.get("properties", {}))
            if (
                node.get("additionalProperties") is not False
                or set(node.get("required", [])) != props
            ):
                found.append(where)
        for key, value in node.items():
            found += loose_objects(value, f"{where}.{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found += loose_objects(value, f"{where}[{i}]")
    return found


def test_every_session_kind_the_pipeline_needs_has_a_reply_model() -> None:
    """Triage through the conflict resolver are all registered by name."""
    assert set(KINDS) <= set(reply_names())


@pytest.mark.parametrize("name", KINDS)
def test_every_reply_schema_is_strict(name: str) -> None:
    """Every object is closed and requires every property, as codex's strict mode needs."""
    schema = reply_schema(name)
    assert schema["type"] == "object"
    assert loose_objects(schema) == []


def test_a_schema_changed_by_its_caller_is_not_changed_for_the_next() -> None:
    """Schemas are built once a process; each caller still gets its own copy."""
    first = reply_schema("review")
    first["properties"].clear()
    assert reply_schema("review")["properties"]


def test_the_strict_walker_catches_an_open_object() -> None:
    """The check above can fail: an object with an optional property is reported."""
    schema = {"type": "object", "properties": {"a": {}}, "required": []}
    assert loose_objects(schema) == ["$"]


def test_optional_fields_are_required_but_nullable() -> None:
    """`no_tests_reason` must be sent, and may be null."""
    prop = reply_schema("spec")["properties"]["no_tests_reason"]
    assert {"type": "null"} in prop["anyOf"]


def test_a_bad_reply_gets_findings_naming_each_field() -> None:
    """A wrong enum value and a missing field are both named."""
    checked = validate_reply("accept", {"verdict": "maybe", "reason": "r", "missing": []})
    assert checked.reply is None
    named = {finding.split(":", 1)[0] for finding in checked.findings}
    assert {"verdict", "summary", "no_tests_reason_holds"} <= named


def test_a_nested_bad_field_is_named_by_its_path() -> None:
    """A finding's bad severity is named as findings.0.severity."""
    reply = {"lens": "scope", "summary": "s", "findings": [{"severity": "huge"}]}
    checked = validate_reply("review", reply)
    assert any(f.startswith("findings.0.severity:") for f in checked.findings)


def test_unknown_fields_are_refused() -> None:
    """additionalProperties false holds in validation too."""
    reply = {"status": "done", "summary": "s", "addressed": [], "disputes": [], "extra": 1}
    checked = validate_reply("fix", reply)
    assert checked.reply is None
    assert any(f.startswith("extra:") for f in checked.findings)


def test_more_than_five_questions_are_refused() -> None:
    """Triage asks at most five questions (TRI-2)."""
    reply = {
        "decision": "needs-info",
        "notes": "",
        "questions": ["q"] * 6,
        "reason": None,
        "summary": "s",
    }
    assert validate_reply("triage", reply).reply is None


def test_an_unknown_reply_model_names_the_known_ones() -> None:
    """A typo in a reply model name is an error listing the registered names."""
    with pytest.raises(ValueError, match="triage"):
        reply_schema("triaje")


def test_a_writers_handoff_reply_has_empty_fields_and_status_handoff() -> None:
    """SPEC-34: the job's fabricated reply is a valid handoff with its summary."""
    reply = handoff_reply("spec", "stopped at the hard limit")
    assert isinstance(reply, SpecReply)
    assert (reply.status, reply.summary) == ("handoff", "stopped at the hard limit")
    assert reply.questions == []
    assert reply.no_tests_reason is None


def test_a_reader_model_has_no_handoff_reply() -> None:
    """Readers are retried, not handed off."""
    assert handoff_reply("review", "x") is None
