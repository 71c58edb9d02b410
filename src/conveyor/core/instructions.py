"""Which repository files instruct the agents on a change, as read from the base branch.

The files the agent CLIs and their peers read: `AGENTS.md` and `CLAUDE.md` (at the root for
the whole repository, in a folder for the files under it), `.github/copilot-instructions.md`,
path-scoped `.github/instructions/*.instructions.md` (their front matter's `applyTo` globs;
one without `applyTo` is applied only by hand, so not here), and the configured
`paths.practices`. The job reads them from the base branch, never from the branch the
agent writes, so no agent can rewrite the rules it is judged by (`job/instructions.py`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from conveyor.core.paths import matches_any, normalise

AGENT_FILES = frozenset({"AGENTS.md", "CLAUDE.md"})
COPILOT = ".github/copilot-instructions.md"
SCOPED_DIR = ".github/instructions/"
SCOPED_SUFFIX = ".instructions.md"
MAX_FILES = 30  # a monorepo's hundred AGENTS.md files: the first 30 by path, always-ones first
_FRONT = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.DOTALL)
_APPLY_TO = re.compile(r"^applyTo:[ \t]*(.*?)[ \t]*$", re.MULTILINE)


@dataclass(frozen=True)
class Instruction:
    """A file that instructs the agents, with where it applies (None: everywhere)."""

    path: str
    scope: str | None = None


def is_candidate(path: str, practices: Sequence[str]) -> bool:
    """Whether a path of the base's tree may be an instructions file (what to read of it)."""
    path = normalise(path)
    name = path.rsplit("/", 1)[-1]
    scoped = path.startswith(SCOPED_DIR) and path.endswith(SCOPED_SUFFIX)
    return name in AGENT_FILES or path == COPILOT or scoped or path in _practices(practices)


def apply_to(text: str) -> tuple[str, ...]:
    """A path-scoped file's `applyTo` globs (comma-separated, quotes dropped); none without."""
    front = _FRONT.match(text)
    found = _APPLY_TO.search(front.group(1)) if front else None
    if found is None:
        return ()
    value = found.group(1).strip().strip("'\"")
    return tuple(g.strip().strip("'\"") for g in value.split(",") if g.strip().strip("'\""))


def instructions_for(
    files: Mapping[str, str], changed: Sequence[str] | None, practices: Sequence[str]
) -> tuple[Instruction, ...]:
    """The files of `files` (path to text, as on the base) that apply to a change touching
    `changed` (None: not known yet, so every scoped file applies, its scope named)."""
    wanted = _practices(practices)
    always: list[Instruction] = []
    scoped: list[Instruction] = []
    for raw in sorted(files):
        path = normalise(raw)
        folder, _, name = path.rpartition("/")
        if path in wanted or path == COPILOT or (name in AGENT_FILES and not folder):
            always.append(Instruction(path))
        elif name in AGENT_FILES:
            if changed is None or any(normalise(c).startswith(f"{folder}/") for c in changed):
                scoped.append(Instruction(path, f"files under `{folder}/`"))
        elif path.startswith(SCOPED_DIR) and path.endswith(SCOPED_SUFFIX):
            globs = apply_to(files[raw])
            if globs and (changed is None or any(matches_any(c, globs) for c in changed)):
                scope = None if "**" in globs else f"files matching `{', '.join(globs)}`"
                (always if scope is None else scoped).append(Instruction(path, scope))
    return tuple([*always, *scoped][:MAX_FILES])


def _practices(practices: Sequence[str]) -> frozenset[str]:
    return frozenset(normalise(p) for p in practices)
