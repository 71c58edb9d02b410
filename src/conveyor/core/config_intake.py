"""The `[intake]` section: which trusted issues are taken as new work, in what order, how many
large ones at once (busybees' filter, `priority`, size labels and `dispatch_order`)."""

from __future__ import annotations

from typing import Literal

from pydantic import ValidationInfo, field_validator

from conveyor.core.config_terms import PositiveInt, Strict

SIZES = ("xs", "s", "m", "l", "xl")


class Intake(Strict):
    """Which new issues the scheduler takes, and in what order (the trust gate comes first).

    The filter (`labels`, `assignee`, `milestone`, `authors`) only narrows the trusted
    issues: each key set must match, and an issue the pipeline already holds (it has a
    state) goes on whatever its labels say now. `priority_label` and the size labels
    (`size_prefix` + one of `sizes`, `default_size` when none) order the new work:
    priority first, then `dispatch_order`, then age. A new issue sized above `max_size`
    goes to triage with a split required; while `max_large_in_flight` issues sized
    `large_size` or more are in flight, new large ones wait (0: no cap).
    """

    labels: tuple[str, ...] = ()
    assignee: str | None = None
    milestone: str | None = None
    authors: tuple[str, ...] = ()
    priority_label: str = "priority"
    size_prefix: str = "size/"
    sizes: tuple[str, ...] = SIZES
    default_size: str = "m"
    max_size: str | None = None
    large_size: str = "l"
    max_large_in_flight: PositiveInt = 0
    dispatch_order: Literal["smallest", "largest", "oldest"] = "smallest"

    @field_validator("labels", "authors")
    @classmethod
    def _no_blank(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if any(not item.strip() for item in value):
            msg = "expected names, got an empty one"
            raise ValueError(msg)
        return value

    @field_validator("sizes")
    @classmethod
    def _distinct(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if not value or len(set(value)) != len(value):
            msg = f"expected distinct size names, smallest first, got {list(value)}"
            raise ValueError(msg)
        return value

    @field_validator("default_size", "max_size", "large_size")
    @classmethod
    def _a_size(cls, value: str | None, info: ValidationInfo) -> str | None:
        sizes = info.data.get("sizes", SIZES)
        if value is not None and value not in sizes:
            msg = f"expected one of the sizes {list(sizes)}, got {value!r}"
            raise ValueError(msg)
        return value

    def size_of(self, labels: tuple[str, ...]) -> str:
        """The issue's size: the first size label it carries, else `default_size`."""
        for name in labels:
            if name.startswith(self.size_prefix):
                size = name[len(self.size_prefix) :]
                if size in self.sizes:
                    return size
        return self.default_size

    def rank(self, size: str) -> int:
        """The size's place, smallest first."""
        return self.sizes.index(size)

    def is_large(self, size: str) -> bool:
        """Whether the size counts against `max_large_in_flight`."""
        return self.rank(size) >= self.rank(self.large_size)

    def oversize(self, labels: tuple[str, ...]) -> str | None:
        """Why an issue must be split first (its size is above `max_size`), or None."""
        if self.max_size is None:
            return None
        size = self.size_of(labels)
        if self.rank(size) <= self.rank(self.max_size):
            return None
        return (
            f"a person sized it {size} (label `{self.size_prefix}{size}`), above the intake's"
            f" max_size {self.max_size}: split it into smaller issues"
        )
