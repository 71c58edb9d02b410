"""The backend registry: every row of `core.backends` mapped to the code that drives its CLI.

The runner, the transcript reader and `doctor` look a backend up here (`backend_for`)
instead of switching on its name; a unit test checks the map is exhaustive: every
`BackendName` has exactly one row and one backend, under the same name.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from conveyor.agents.backends.base import Backend
from conveyor.agents.backends.claude import ClaudeBackend
from conveyor.agents.backends.codex import CodexBackend
from conveyor.agents.backends.opencode import OpencodeBackend
from conveyor.core.transcript_read import Reader

DEFINITIONS: tuple[Backend, ...] = (ClaudeBackend(), CodexBackend(), OpencodeBackend())
BACKENDS: Mapping[str, Backend] = MappingProxyType({b.name: b for b in DEFINITIONS})


def backend_for(name: str) -> Backend:
    """The backend of one CLI name (`core.backends.NAMES`)."""
    try:
        return BACKENDS[name]
    except KeyError:
        msg = f"no agent backend is named {name!r}; known: {', '.join(BACKENDS)}"
        raise ValueError(msg) from None


def transcript_reader(name: str) -> Reader | None:
    """How a transcript of backend `name` is read; None for a name no backend has."""
    backend = BACKENDS.get(name)
    return None if backend is None else backend.transcript
