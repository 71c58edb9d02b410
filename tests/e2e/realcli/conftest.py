"""Whole-issue tests through the real agent CLIs: the installed CLIs' folder (as realcli's)."""

from __future__ import annotations

from tests.contract.realcli.conftest import clis_bin

__all__ = ["clis_bin"]
