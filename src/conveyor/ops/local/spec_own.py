"""What the spec writer's commits do to the checks: the configuration they change and the
suppressions they add, kept with its tests as the judges' standard (`SpecTests`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from conveyor.core.check_config import Judge
from conveyor.core.config_judges import Judges
from conveyor.core.spec_tests import SpecTests
from conveyor.git.plain import Change
from conveyor.verify.config_read import config_only_paths, entries_for, spec_pins
from conveyor.verify.context import Context
from conveyor.verify.judges import suppressions_of


@dataclass(frozen=True)
class SpecOwn:
    """The check configuration files the spec may change and pins, and its suppressions' keys."""

    config: frozenset[str]
    pins: tuple[tuple[str, str], ...]
    suppressions: tuple[str, ...]

    def kept(self, seen: SpecTests) -> SpecTests:
        """`seen` with the spec's configuration pins and suppressions."""
        return seen.model_copy(update={"config": self.pins, "suppressions": self.suppressions})


def spec_own(
    ctx: Context, judges: Judges, start: str, head: str, changes: Sequence[Change]
) -> SpecOwn:
    """The spec's own configuration changes (CI's are never the spec's) and suppressions."""
    entries = [e for e in entries_for(judges, ctx.commands) if e.judge is not Judge.CI]
    config = config_only_paths(ctx, entries, start, head, changes)
    mine = [c for c in changes if c.path in config]
    pins = spec_pins(ctx, entries, start, head, mine)
    keys = tuple(dict.fromkeys(s.key for s in suppressions_of(ctx, start, head)))
    return SpecOwn(config, pins, keys)
