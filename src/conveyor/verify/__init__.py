"""Verifying a change: running the configured commands, fails-before-fix (the new tests
fail without the fix), the lockfile check, the shared set-up environments and the base's own
failures."""

from conveyor.verify.commands import run_command
from conveyor.verify.run import VerifyInputError, verify

__all__ = ["VerifyInputError", "run_command", "verify"]
