"""A scripted transport for the GitHub client: answers (or faults) in order, requests recorded."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from conveyor.forge.github import GitHubForge, token_forge
from conveyor.forge.retry import RetryPolicy

NOW = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
SPEC = Path(__file__).parents[2] / "data" / "github-openapi-subset.json"

Answer = httpx.Response | Exception


def example(name: str) -> dict[str, Any]:
    """One of GitHub's own example bodies from the OpenAPI description (`issue`, ...)."""
    document = json.loads(SPEC.read_text(encoding="utf-8"))
    value: dict[str, Any] = copy.deepcopy(document["components"]["examples"][name]["value"])
    return value


def status(code: int, headers: dict[str, str] | None = None, body: Any = None) -> httpx.Response:
    """An answer with a status, headers and a JSON body (GitHub's error shape by default)."""
    return httpx.Response(code, headers=headers, json=body or {"message": f"status {code}"})


class Script:
    """Hands out the scripted answers one per request; the last one repeats."""

    def __init__(self, *answers: Answer) -> None:
        self.answers = list(answers)
        self.requests: list[httpx.Request] = []
        self.waits: list[float] = []

    def handle(self, request: httpx.Request) -> httpx.Response:
        """The next answer, or raise the next fault."""
        self.requests.append(request)
        answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        if isinstance(answer, Exception):
            raise answer
        return answer

    def forge(self, **policy: Any) -> GitHubForge:
        """A client for `o/r` whose transport is this script and whose sleep records waits."""
        sleep: Callable[[float], None] = self.waits.append
        retry = RetryPolicy(sleep=sleep, now=lambda: NOW, **policy)
        return token_forge(
            "o/r",
            "t0ken",
            base_url="http://forge.test",
            transport=httpx.MockTransport(self.handle),
            retry=retry,
        )
