"""Which test runner a test command starts, reading the tree's package.json for `npm test`."""

from __future__ import annotations

import json
from pathlib import Path

from conveyor.core.runner_calls import runner_calls, script_names
from conveyor.core.runners import Runner

# `npm test` → "npm run unit" → "mocha …": scripts naming scripts, followed this deep.
_DEPTH = 3
_MAX_BYTES = 1024 * 1024


def package_scripts(tree: Path) -> dict[str, str]:
    """package.json's scripts; none when it is missing, too large or not JSON."""
    path = tree / "package.json"
    try:
        if path.is_symlink() or path.stat().st_size > _MAX_BYTES:
            return {}
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    scripts = data.get("scripts") if isinstance(data, dict) else None
    if not isinstance(scripts, dict):
        return {}
    return {k: v for k, v in scripts.items() if isinstance(k, str) and isinstance(v, str)}


def runner_of(command: str, tree: Path, depth: int = _DEPTH) -> Runner | None:
    """The last known runner `command` starts in `tree`, through package.json scripts."""
    calls = runner_calls(command)
    if calls:
        return calls[-1].runner
    if depth <= 0:
        return None
    scripts = package_scripts(tree) if script_names(command) else {}
    found = None
    for name in script_names(command):
        for script in (scripts.get(f"pre{name}"), scripts.get(name)):
            if script is not None:
                found = runner_of(script, tree, depth - 1) or found
    return found
