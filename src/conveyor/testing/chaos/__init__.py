"""Chaos runs: issues through `conveyor run` while jobs and the orchestrator die by SIGKILL."""
