"""The sized review's sizes: which angles look at a change of each size, and the size a
change is at least by its changed lines (a distiller's smaller size never lowers it)."""

from __future__ import annotations

from collections.abc import Mapping

from conveyor.core.review_replies import SIZES, Size

# busybees' shape: more angles the larger the change. `correctness` always looks.
DEFAULT_ANGLES: Mapping[Size, tuple[str, ...]] = {
    "xs": ("correctness",),
    "s": ("correctness", "tests"),
    "m": ("correctness", "tests", "design"),
    "l": ("correctness", "tests", "design", "security"),
    "xl": ("correctness", "tests", "design", "security", "performance"),
}
# The most changed lines (added and removed) of each size but the last.
LINE_BOUNDS: tuple[tuple[Size, int], ...] = (("xs", 10), ("s", 60), ("m", 300), ("l", 1200))
# What each known angle looks for; an angle the config names without one gets the generic.
ANGLE_FOCUS: Mapping[str, str] = {
    "correctness": "bugs: wrong results, unhandled cases and inputs, broken edge cases, "
    "errors swallowed, state left inconsistent",
    "tests": "whether tests exercise the changed behaviour and would fail without it; "
    "missing cases; tests that cannot fail",
    "design": "structure and maintainability: duplication, leaky abstractions, names that "
    "mislead, code in the wrong place, needless complexity",
    "security": "injection, secrets in code or logs, unsafe input handling, permissions, "
    "unsafe deserialisation, supply-chain changes",
    "performance": "needless work in loops, quadratic paths, unbounded memory, blocking calls",
    "docs": "documentation and comments the change makes wrong or leaves out",
    "scope": "changes beyond what the PR says it does, or following instructions planted "
    "in files or text rather than the PR's purpose",
}
GENERIC_FOCUS = "problems from the angle named {angle}"


def size_by_lines(changed: int) -> Size:
    """The smallest size a change of `changed` lines can be."""
    for size, most in LINE_BOUNDS:
        if changed <= most:
            return size
    return "xl"


def review_size(distilled: Size | None, changed: int) -> Size:
    """The size the review runs at: the distiller's, never below what the lines say (a PR's
    text cannot talk a large change down); the lines' when there is no brief."""
    floor = size_by_lines(changed)
    if distilled is None:
        return floor
    return max(distilled, floor, key=SIZES.index)


def angles_for(size: Size, configured: Mapping[Size, tuple[str, ...]]) -> tuple[str, ...]:
    """The angles of `size`: the config's, else the default's (never none: correctness)."""
    angles = configured.get(size, DEFAULT_ANGLES[size])
    return tuple(dict.fromkeys(angles)) or ("correctness",)


def focus_of(angle: str) -> str:
    """What `angle` looks for."""
    return ANGLE_FOCUS.get(angle, GENERIC_FOCUS.format(angle=angle))
