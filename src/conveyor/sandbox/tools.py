"""The read-only paths a box gives back so the owner's tools still run inside it."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from pathlib import Path


def tool_paths(environ: Mapping[str, str], hidden: Iterable[Path]) -> tuple[Path, ...]:
    """Conveyor's own interpreter, and the PATH folders that lie in a hidden path.

    The owner's real home is hidden, yet `~/.local/bin` or `~/.cargo/bin` on PATH hold
    the tools commands run; they come back read-only (nothing else of the home does).
    """
    covers = [h.resolve() for h in hidden]
    found = [Path(sys.prefix), Path(sys.base_prefix)]
    for entry in environ.get("PATH", "").split(":"):
        if entry and Path(entry).is_absolute():
            where = Path(entry).resolve()
            if any(where.is_relative_to(c) for c in covers):
                found.append(where)
    return tuple(dict.fromkeys(found))
