"""Pytest fixtures shared by Conveyor's tests, benchmarks' smoke tests and the demo's test."""

from __future__ import annotations
