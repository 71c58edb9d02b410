"""verify: running configured commands, fails-before-fix and the lockfile check."""

from conveyor.verify.commands import run_command
from conveyor.verify.run import VerifyInputError, verify

__all__ = ["VerifyInputError", "run_command", "verify"]
