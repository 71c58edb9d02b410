"""The read-only paths a box gives back so the owner's tools still run inside it."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

from conveyor.sandbox.bwrap import TMP


def tool_paths(environ: Mapping[str, str], hidden: Iterable[Path]) -> tuple[Path, ...]:
    """Conveyor's own interpreter and the PATH folders, where they lie in a hidden path or in
    `/tmp` (which the box replaces with its own).

    The owner's real home is hidden, yet `~/.local/bin` or `~/.cargo/bin` on PATH hold
    the tools commands run, and Conveyor may be installed in `~/conveyor`; they come
    back read-only (nothing else of the home does). Paths outside every hidden one are
    seen anyway (the read-only root) and need no bind.
    """
    covers = [TMP, *(h.resolve() for h in hidden)]
    found = [Path(sys.prefix), Path(sys.base_prefix)]
    found += [Path(e) for e in environ.get("PATH", "").split(":") if e and Path(e).is_absolute()]
    kept = []
    for path in found:
        where = path.resolve()
        if any(where.is_relative_to(c) for c in covers):
            kept.append(where)
    return tuple(dict.fromkeys(kept))
