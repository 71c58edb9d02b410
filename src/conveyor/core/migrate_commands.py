"""The migration check's two commands (CHK-5), a part of `commands` kept in its own model.

`Commands` takes these fields from `MigrateCommands`, so the keys are
`commands.migrate_up` and `commands.migrate_down`; they go together.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, model_validator


class MigrateCommands(BaseModel):
    """Up and down: each runs the repository's migrations against `$CONVEYOR_SCRATCH_DB`.

    When a change touches `paths.migrations`, verify runs up, down and up again on a
    fresh scratch database; a failure is a finding for the check fixer.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    migrate_up: str | None = None
    migrate_down: str | None = None

    @model_validator(mode="after")
    def _paired(self) -> MigrateCommands:
        if (self.migrate_up is None) != (self.migrate_down is None):
            msg = "migrate_up and migrate_down go together: set both or neither"
            raise ValueError(msg)
        return self
