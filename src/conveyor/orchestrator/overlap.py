"""Whether two writers' path globs may touch the same file, erring towards yes (ORC-4)."""

from __future__ import annotations

from dataclasses import dataclass

WILDCARDS = frozenset("*?[{")


@dataclass(frozen=True, slots=True)
class Glob:
    """One glob cut at its first wildcard: the literal prefix, and whether it had no wildcard."""

    prefix: str
    literal: bool


# An empty tuple stands for the whole repository, which overlaps everything.
Globs = tuple[Glob, ...]


def compile_glob(pattern: str) -> Glob:
    """Split a glob into its literal prefix; `./` and leading slashes are dropped."""
    text = pattern.strip()
    while text.startswith(("./", "/")):
        text = text[2:] if text.startswith("./") else text[1:]
    for index, char in enumerate(text):
        if char in WILDCARDS:
            return Glob(text[:index], literal=False)
    return Glob(text, literal=True)


def compile_globs(patterns: tuple[str, ...]) -> Globs:
    """Compile a writer's globs; a glob that reduces to nothing means the whole repository."""
    globs = tuple(compile_glob(pattern) for pattern in patterns if pattern.strip())
    if any(glob.prefix == "" for glob in globs):
        return ()
    return globs


def _pair(a: Glob, b: Glob) -> bool:
    """Two globs overlap unless their literal prefixes rule it out."""
    if a.literal and b.literal:
        return a.prefix == b.prefix or _under(a.prefix, b.prefix) or _under(b.prefix, a.prefix)
    return a.prefix.startswith(b.prefix) or b.prefix.startswith(a.prefix)


def _under(path: str, folder: str) -> bool:
    """Whether `path` is inside `folder`."""
    return path.startswith(folder.rstrip("/") + "/")


def overlaps(a: Globs, b: Globs) -> bool:
    """Whether two writers may touch one file: the whole repository overlaps anything,
    and globs differing only after their first wildcard overlap (`src/*.ts`, `src/*.md`).
    """
    if not a or not b:
        return True
    return any(_pair(x, y) for x in a for y in b)
