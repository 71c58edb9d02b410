"""Contract tests of verify against real git and real commands."""
