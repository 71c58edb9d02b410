"""GitHub's webhook deliveries: the HMAC-SHA256 signature, and what a delivery is about.

A delivery is a POST whose `X-GitHub-Event` names the event, `X-GitHub-Delivery`
its id, and `X-Hub-Signature-256` is `sha256=` and the hex HMAC-SHA256 of the
raw body under the hook's secret. Only a delivery whose signature checks is
read, and then only its event, `action`, repository, issue or PR number, sender
and the commit a CI result is about: a webhook tells the orchestrator *when* to
look at the forge, never *what* is there (the payload's text is untrusted and is
neither logged nor used).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass

SIGNATURE_HEADER = "x-hub-signature-256"
EVENT_HEADER = "x-github-event"
DELIVERY_HEADER = "x-github-delivery"
# The events that can change what the orchestrator would do: issues and their comments,
# pull requests and their reviews, and CI results.
WAKING_EVENTS = frozenset(
    {
        "issues", "issue_comment", "pull_request", "pull_request_review",
        "pull_request_review_comment", "check_run", "check_suite", "status", "sub_issues",
    }
)  # fmt: skip
# A review, a review comment or a PR conversation comment given or changed: feedback.
_FEEDBACK_ACTIONS = frozenset({"submitted", "created", "edited"})
_NAME = re.compile(r"[a-z_]{1,40}")
_DELIVERY = re.compile(r"[0-9A-Za-z-]{1,64}")
_SHA = re.compile(r"[0-9a-f]{40}")


def sign(secret: bytes, body: bytes) -> str:
    """The `X-Hub-Signature-256` value GitHub sends for `body`."""
    return "sha256=" + hmac.new(secret, body, hashlib.sha256).hexdigest()


def signature_ok(secret: bytes, body: bytes, header: str | None) -> bool:
    """Whether `header` is the body's HMAC-SHA256 under `secret` (compared in constant time)."""
    if header is None or not header.startswith("sha256="):
        return False
    return hmac.compare_digest(sign(secret, body), header.strip())


def safe_name(value: str | None) -> str:
    """An event or action name fit for a log line: lower-case letters and `_`, else `?`."""
    return value if value is not None and _NAME.fullmatch(value) else "?"


def safe_delivery(value: str | None) -> str:
    """A delivery id fit for a log line (GitHub's are GUIDs), else `?`."""
    return value if value is not None and _DELIVERY.fullmatch(value) else "?"


@dataclass(frozen=True)
class Delivery:
    """What a verified delivery is about: event, action, repository, issue or PR number,
    whose change it was (`sender`), the commit whose CI finished (`ci_sha`), and the PR
    a review, review comment or conversation comment was given on (`feedback_pr`)."""

    event: str
    action: str
    repo: str
    number: int | None
    delivery: str
    sender: str = ""
    ci_sha: str | None = None
    feedback_pr: int | None = None

    @property
    def wakes(self) -> bool:
        """Whether it can change what the orchestrator does (a ping cannot)."""
        return self.event in WAKING_EVENTS

    def line(self) -> str:
        """One log line's worth: `issue_comment created #12` (no untrusted text)."""
        where = f" #{self.number}" if self.number is not None else ""
        return f"{self.event} {self.action}{where}"


def read_delivery(headers: Mapping[str, str], body: bytes) -> Delivery | str:
    """The delivery's facts, or a one-line reason it cannot be read (already verified)."""
    lowered = {k.lower(): v for k, v in headers.items()}
    event = safe_name(lowered.get(EVENT_HEADER))
    if event == "?":
        return "no X-GitHub-Event header"
    try:
        payload = json.loads(body)
    except ValueError:
        return "the body is not JSON"
    if not isinstance(payload, dict):
        return "the body is not a JSON object"
    action = payload.get("action")
    return Delivery(
        event=event,
        action=safe_name(action) if isinstance(action, str) else "-",
        repo=_text(payload, "repository", "full_name"),
        number=_number(payload),
        delivery=safe_delivery(lowered.get(DELIVERY_HEADER)),
        sender=_text(payload, "sender", "login"),
        ci_sha=_ci_sha(event, payload),
        feedback_pr=_feedback_pr(event, payload),
    )


def _ci_sha(event: str, payload: dict[str, object]) -> str | None:
    """The commit a finished check run or suite, or a final commit status, reports on."""
    sha: object = None
    if event in ("check_run", "check_suite") and payload.get("action") == "completed":
        item = payload.get(event)
        sha = item.get("head_sha") if isinstance(item, dict) else None
    elif event == "status" and payload.get("state") in ("success", "failure", "error"):
        sha = payload.get("sha")
    return sha if isinstance(sha, str) and _SHA.fullmatch(sha) else None


def _feedback_pr(event: str, payload: dict[str, object]) -> int | None:
    """The PR a review, review comment or conversation comment was given on (or edited)."""
    if payload.get("action") not in _FEEDBACK_ACTIONS:
        return None
    if event in ("pull_request_review", "pull_request_review_comment"):
        return _number({"pull_request": payload.get("pull_request")})
    issue = payload.get("issue")
    if event == "issue_comment" and isinstance(issue, dict) and "pull_request" in issue:
        return _number({"issue": issue})
    return None


def _text(payload: dict[str, object], key: str, field: str) -> str:
    item = payload.get(key)
    value = item.get(field) if isinstance(item, dict) else None
    return value if isinstance(value, str) else ""


def _number(payload: dict[str, object]) -> int | None:
    for key in ("issue", "pull_request"):
        item = payload.get(key)
        number = item.get("number") if isinstance(item, dict) else None
        if isinstance(number, int) and not isinstance(number, bool):
            return number
    return None
