"""Which infrastructure failure a session's end was: read from the CLI's own words (pure).

An infrastructure failure is not the issue's doing: the session is not counted
as an attempt, its launch charge is given back, and the orchestrator holds new
starts for that agent while the cause lasts (`orchestrator/agent_pauses.py`).
"""

from __future__ import annotations

import re
from enum import StrEnum


class InfraKind(StrEnum):
    """What went wrong outside the issue, from the sign-in to the CLI itself."""

    AUTH = "auth"
    USAGE_LIMIT = "usage-limit"
    OVERLOADED = "overloaded"
    NETWORK = "network"
    CLI_MISSING = "cli-missing"
    CLI_CRASH = "cli-crash"
    HUNG = "hung"


_AUTH = re.compile(
    r"\b40[13]\b|unauthori[sz]ed|forbidden|authenticat|invalid[ _-](x-)?api[ _-]key"
    r"|api[ _-]key (is )?(missing|invalid|not (set|valid))|no api key|not logged in"
    r"|not signed in|please run /login|log ?in again|credentials|permission_error",
    re.IGNORECASE,
)
_OVERLOADED = re.compile(
    r"\b(500|502|503|504|520|524|529)\b|overloaded|service unavailable|server[ _-]error"
    r"|internal error|bad gateway|gateway time-?out|at capacity|temporarily unavailable",
    re.IGNORECASE,
)
_NETWORK = re.compile(
    r"econnrefused|econnreset|etimedout|enotfound|eai_again|connection (was )?(refused"
    r"|reset|dropped|failed|closed|error|lost)|network|socket hang up|fetch failed"
    r"|error sending request|stream disconnected|unable to connect|could not connect"
    r"|name resolution|failed to lookup address|broken pipe|unexpected eof|cannot connect",
    re.IGNORECASE,
)


def classify_error(text: str, *, rate_limited: bool) -> InfraKind:
    """The kind of an API error the CLI reported (`rate_limited`: its parser saw a limit).

    Anything the patterns do not name is counted as the provider's trouble
    (`overloaded`): an API error is never the issue's doing.
    """
    if _AUTH.search(text):
        return InfraKind.AUTH
    if rate_limited:
        return InfraKind.USAGE_LIMIT
    if _NETWORK.search(text) and not _OVERLOADED.search(text):
        return InfraKind.NETWORK
    return InfraKind.OVERLOADED


def retried(kind: InfraKind) -> bool:
    """Whether launching again at once can help: not for a sign-in or a missing CLI."""
    return kind not in (InfraKind.AUTH, InfraKind.CLI_MISSING, InfraKind.USAGE_LIMIT)


HOLD_MINUTES: dict[InfraKind, float] = {
    InfraKind.AUTH: 15,
    InfraKind.CLI_MISSING: 15,
    InfraKind.USAGE_LIMIT: 15,
    InfraKind.CLI_CRASH: 5,
    InfraKind.OVERLOADED: 2,
    InfraKind.NETWORK: 2,
    InfraKind.HUNG: 5,
}
"""How long new starts for the agent wait after such a failure (a usage limit with a known
reset waits until then instead); the first start after the hold is the next probe."""


def what_to_do(kind: InfraKind, backend: str) -> str:
    """The one line a person reads to make the agent work again."""
    match kind:
        case InfraKind.AUTH:
            return f"sign the {backend} CLI in (or set its API key), then `conveyor doctor`"
        case InfraKind.CLI_MISSING:
            return f"install the {backend} CLI or fix `executable`, then `conveyor doctor`"
        case InfraKind.USAGE_LIMIT:
            return "wait for the provider's usage limit to reset"
        case InfraKind.CLI_CRASH:
            return f"the {backend} CLI exits at start: run it by hand to see why"
        case InfraKind.OVERLOADED | InfraKind.NETWORK | InfraKind.HUNG:
            return "nothing: new starts resume by themselves"
