"""The `[handover]` and `[notify]` sections: who merges a finished PR, and whom to tell.

`handover.merge = "conveyor"` (the default) squash-merges a PR that passed verify, CI,
acceptance and security. `"person"` stops short of it, as busybees does with `auto_merge`
off: the PR gets `label`, is assigned to `assignees` and asks `reviewers` for a review,
and the issue ends at the `approved` stage (`agent:approved`) for a person to merge.
`notify.command` is a shell command run on every stop and every handover, with what
happened in its environment (`CONVEYOR_NOTIFY_*`); its failure is logged, never fatal.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, field_validator

from conveyor.core.config_terms import Strict


class Handover(Strict):
    """Whether Conveyor merges a finished PR itself or hands it to a person."""

    merge: Literal["conveyor", "person"] = "conveyor"
    label: str = "ready-to-merge"
    assignees: tuple[str, ...] = ()
    reviewers: tuple[str, ...] = ()

    @field_validator("label")
    @classmethod
    def _a_label(cls, value: str) -> str:
        if not value.strip() or value.startswith("agent:"):
            msg = f"expected a label name outside `agent:` (Conveyor's own), got {value!r}"
            raise ValueError(msg)
        return value

    @property
    def by_person(self) -> bool:
        """Whether a person merges."""
        return self.merge == "person"


class Notify(Strict):
    """The operator's command told of every stop and every handover (none: nobody is)."""

    command: str | None = None
    timeout_seconds: Annotated[float, Field(gt=0)] = 30
