"""Reply models of every session kind, registered by name, with strict JSON Schemas.

Every field is required (optional ones are nullable), every object is closed: codex sends
`--output-schema` in OpenAI's strict mode, and the MCP tool uses the same schema.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

SPEC_END = "<!-- end of spec -->"
Done = Literal["done", "handoff"]
Severity = Literal["blocking", "nit"]


class Reply(BaseModel):
    """A session's reply: closed, immutable, every field required."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


R = TypeVar("R", bound=type[Reply])
_REGISTRY: dict[str, type[Reply]] = {}


def register(name: str) -> Callable[[R], R]:
    """Register a reply model under `name` (the session's `CONVEYOR_REPLY_MODEL`)."""

    def add(model: R) -> R:
        _REGISTRY[name] = model
        return model

    return add


class Finding(Reply):
    """One review finding (REV-4)."""

    severity: Severity
    file: str
    line: int | None
    evidence: str
    suggestion: str


@register("triage")
class TriageReply(Reply):
    """Triage's decision (TRI-2, TRI-4): notes for the spec writer, questions, or a reason."""

    decision: Literal["ready", "needs-info", "split-suggested", "reject"]
    notes: str
    questions: Annotated[list[str], Field(max_length=5)]
    reason: str | None
    summary: str


class SubIssue(Reply):
    """One part of a split (SPEC-28): `after` holds 0-based indexes of earlier parts."""

    title: str
    body: str
    after: list[int]


class Interface(Reply):
    """A public surface the spec's tests drive (SPEC-35)."""

    name: str
    kind: Literal["function", "module", "cli", "ops-request", "http", "ui", "config"]
    where: str
    status: Literal["existing", "new", "changed"]
    signature: str
    behaviours: list[str]


@register("spec")
class SpecReply(Reply):
    """The spec writer's reply (SPEC-28..36): the spec text ends with `SPEC_END`."""

    decision: Literal["ready", "needs-info", "split", "no-work"]
    spec: str
    questions: Annotated[list[str], Field(max_length=5)]
    sub_issues: Annotated[list[SubIssue], Field(max_length=5)]
    interfaces: list[Interface]
    no_tests_reason: str | None
    wiki_only: bool
    spec_in_draft: bool
    status: Done
    summary: str


class RuleDeviation(Reply):
    """A practices rule the writer could not follow, and why (IMPL-2)."""

    rule: str
    why: str


@register("implement")
class ImplementReply(Reply):
    """The implementer's reply: done, handoff, or blocked on a wrong spec test (IMPL-12)."""

    status: Literal["done", "handoff", "blocked"]
    summary: str
    blocked_reason: str | None
    deviations: list[RuleDeviation]


@register("review")
class ReviewReply(Reply):
    """One lens's findings (REV-1, REV-4); an empty list is a clean review."""

    lens: Literal["correctness", "tests", "scope", "acceptance", "security"]
    findings: list[Finding]
    summary: str


class Ruling(Reply):
    """A lens's ruling on a dispute (FIX-4): `upheld` means the fixer is right, the finding goes."""

    finding: int
    upheld: bool
    reason: str


@register("rereview")
class RereviewReply(Reply):
    """A re-review: rulings on disputes, findings still open, problems the fix introduced."""

    rulings: list[Ruling]
    still_open: list[int]
    findings: list[Finding]
    summary: str


class NumberedFinding(Reply):
    """A merged finding with its number and the lenses that raised it (REV-5)."""

    id: int
    lenses: list[str]
    severity: Severity
    file: str
    line: int | None
    evidence: str
    suggestion: str


@register("aggregate")
class AggregateReply(Reply):
    """The aggregator's merged, numbered findings."""

    findings: list[NumberedFinding]
    summary: str


class Addressed(Reply):
    """How the fixer dealt with one finding."""

    finding: int
    how: str


class Dispute(Reply):
    """A disputed finding (FIX-4, FIX-6), quoting the spec line it would break, if any."""

    finding: int
    reason: str
    spec_quote: str | None


@register("fix")
class FixReply(Reply):
    """The fixer's reply: findings addressed and findings disputed."""

    status: Done
    summary: str
    addressed: list[Addressed]
    disputes: list[Dispute]


@register("check_fix")
class CheckFixReply(Reply):
    """The CI fixer's reply: what failed and what it changed (CHK-7)."""

    status: Literal["done", "handoff", "cannot-fix"]
    cause: str
    summary: str


@register("accept")
class AcceptReply(Reply):
    """The acceptance verifier's verdict (ACC-1, ACC-2): the Behaviour items left out."""

    verdict: Literal["pass", "fail"]
    reason: str
    missing: list[str]
    no_tests_reason_holds: bool | None
    summary: str


class SecurityFinding(Reply):
    """A change that harms users, their rights or money, or adds an abuse risk (SEC-2)."""

    category: Literal["user-harm", "users-rights", "financial-harm", "abuse-risk"]
    file: str
    line: int | None
    evidence: str
    suggestion: str


@register("security")
class SecurityReply(Reply):
    """The security reviewer's findings; an empty list passes."""

    findings: list[SecurityFinding]
    summary: str


@register("resolver")
class ResolverReply(Reply):
    """The conflict resolver's reply, with the choice it made where sides contradict (SYNC-4)."""

    status: Literal["done", "handoff", "cannot-fix"]
    choices: str
    summary: str


def reply_names() -> tuple[str, ...]:
    """Every registered reply model name."""
    return tuple(sorted(_REGISTRY))


def reply_model(name: str) -> type[Reply]:
    """The model registered as `name`; an unknown name is a ValueError naming the known ones."""
    try:
        return _REGISTRY[name]
    except KeyError:
        msg = f"unknown reply model {name!r}; known: {', '.join(reply_names())}"
        raise ValueError(msg) from None


def _strict(node: Any) -> Any:
    if isinstance(node, list):
        return [_strict(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {k: _strict(v) for k, v in node.items() if k not in ("title", "default", "properties")}
    if "properties" in node:
        out["properties"] = {k: _strict(v) for k, v in node["properties"].items()}
    if out.get("type") == "object" and "properties" in out:
        out["required"] = sorted(out["properties"])
        out["additionalProperties"] = False
    return out


def reply_schema(name: str) -> dict[str, Any]:
    """The strict JSON Schema of reply model `name` (a fresh copy: callers may change it)."""
    schema: dict[str, Any] = json.loads(_schema_text(name))
    return schema


@functools.cache
def _schema_text(name: str) -> str:
    """`reply_schema`'s text, made once a process: pydantic builds a model's schema anew at
    every call, and a process's first build took 23 ms (its generator's start), once in every
    session's `tools/list` of a forked job."""
    return json.dumps(_strict(reply_model(name).model_json_schema()))


def warm_reply_schemas() -> None:
    """Build every reply model's schema now (forked jobs' sessions then build none)."""
    for name in reply_names():
        _schema_text(name)


@dataclass(frozen=True)
class ReplyCheck:
    """A validated reply, or the findings (each naming its field) that stop it."""

    reply: Reply | None
    findings: tuple[str, ...]


def validate_reply(name: str, data: object) -> ReplyCheck:
    """Validate `data` against reply model `name`; findings read `field.path: problem`."""
    try:
        return ReplyCheck(reply_model(name).model_validate(data), ())
    except ValidationError as exc:
        found = [f"{'.'.join(map(str, e['loc'])) or '(reply)'}: {e['msg']}" for e in exc.errors()]
        return ReplyCheck(None, tuple(found))


from conveyor.core import review_replies as _review_replies  # noqa: E402, F401 - registers them
