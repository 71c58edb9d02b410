"""Signatures: the header and hidden marker of every pipeline comment, and the commit trailer."""

from __future__ import annotations

import re
from dataclasses import dataclass

MARKER_PREFIX = "<!-- conveyor:"
TOKEN = re.compile(r"[A-Za-z0-9._:-]+")
_COMMENT = re.compile(
    r"<!-- conveyor:comment role=(?P<role>\S+) kind=(?P<kind>\S+) run=(?P<run>\S+) -->"
)

ROLE_NAMES = {
    "coordinator": "coordinator",
    "triage": "triage",
    "spec": "spec writer",
    "implement": "implementer",
    "review": "reviewer",
    "aggregate": "aggregator",
    "fix": "fixer",
    "rereview": "re-reviewer",
    "check_fix": "check fixer",
    "accept": "acceptance verifier",
    "security": "security reviewer",
    "resolver": "conflict resolver",
}


def check_token(what: str, value: str) -> str:
    """A value that goes into a hidden marker: no spaces, no markup."""
    if not TOKEN.fullmatch(value):
        msg = f"{what}: expected letters, digits, '.', '_', ':' or '-', got {value!r}"
        raise ValueError(msg)
    return value


@dataclass(frozen=True)
class Signature:
    """Who posts: the role, the agent and model behind it, and the run (GH-11)."""

    role: str
    agent: str
    model: str
    run_id: str

    def __post_init__(self) -> None:
        """Refuse values that would break the marker."""
        check_token("role", self.role)
        check_token("run_id", self.run_id)

    @property
    def role_name(self) -> str:
        """The role as people read it (`spec writer`)."""
        return ROLE_NAMES.get(self.role, self.role)

    def header(self) -> str:
        """The visible first line of a signed comment."""
        return (
            f"**Conveyor · {self.role_name}** · agent `{self.agent}` · model `{self.model}`"
            f" · run `{self.run_id}`"
        )

    def marker(self, kind: str) -> str:
        """The hidden marker naming the role, the kind of comment and the run (GH-12)."""
        check_token("kind", kind)
        return f"<!-- conveyor:comment role={self.role} kind={kind} run={self.run_id} -->"

    def sign(self, kind: str, text: str) -> str:
        """A full comment body: header, marker, then the text."""
        return f"{self.header()}\n{self.marker(kind)}\n\n{text.strip()}\n"


@dataclass(frozen=True)
class CommentMarker:
    """What a pipeline comment's hidden marker says."""

    role: str
    kind: str
    run: str


def parse_marker(body: str) -> CommentMarker | None:
    """The comment marker in a body, if any."""
    found = _COMMENT.search(body)
    if found is None:
        return None
    return CommentMarker(found["role"], found["kind"], found["run"])


def has_marker(body: str) -> bool:
    """Whether a body carries any of the pipeline's hidden markers."""
    return MARKER_PREFIX in body


# The spec writer's commits carry failing tests by design: CI skips them (GitHub
# honours the `skip-checks: true` trailer; so does the embedded forge).
SKIP_CHECKS = "skip-checks: true"
SKIP_CHECKS_ROLES = frozenset({"spec"})


def trailer(role: str) -> str:
    """The `Pipeline-Agent:` trailer that ends every agent commit (GH-17)."""
    return f"Pipeline-Agent: {ROLE_NAMES.get(role, role)}"
