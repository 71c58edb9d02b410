"""The sized review's sizes and the angles of each (BB-REV-1)."""

from __future__ import annotations

from conveyor.core.review_replies import Size
from conveyor.core.review_size import DEFAULT_ANGLES, angles_for, review_size, size_by_lines


def test_the_lines_set_a_floor_the_distiller_cannot_talk_down() -> None:
    """A 5,000-line change stays xl whatever the brief says; a small one takes the brief's."""
    assert review_size("xs", 5000) == "xl"
    assert review_size("l", 4) == "l"
    assert review_size(None, 40) == "s"


def test_sizes_by_lines_grow_with_the_change() -> None:
    """Each bound is the last line count of its size."""
    assert [size_by_lines(n) for n in (0, 10, 11, 60, 61, 300, 301, 1200, 1201)] == [
        "xs", "xs", "s", "s", "m", "m", "l", "l", "xl",
    ]  # fmt: skip


def test_a_size_gets_the_configured_angles_else_the_defaults() -> None:
    """The config's list wins (duplicates dropped); a size it leaves out has the default."""
    configured: dict[Size, tuple[str, ...]] = {"m": ("security", "security", "tests")}
    assert angles_for("m", configured) == ("security", "tests")
    assert angles_for("l", configured) == DEFAULT_ANGLES["l"]
    assert angles_for("s", {"s": ()}) == ("correctness",)
