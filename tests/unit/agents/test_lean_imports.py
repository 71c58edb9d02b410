"""`conveyor mcp` and the scripted agent import only what they use, so sessions start fast."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest


def loaded(module: str) -> set[str]:
    """The modules a fresh interpreter holds after importing `module`."""
    code = f"import sys, json, {module}; print(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(json.loads(done.stdout))


@pytest.mark.parametrize("module", ["conveyor.cli.main", "conveyor.agents.mcp_server"])
def test_the_mcp_entry_imports_no_forge_client_or_cli_framework(module: str) -> None:
    """No githubkit, typer or rich behind `conveyor mcp`."""
    assert not {"githubkit", "typer", "rich"} & {m.split(".")[0] for m in loaded(module)}


def test_the_scripted_agent_imports_neither_pydantic_nor_the_mcp_sdk() -> None:
    """It speaks JSON-RPC itself and reads scenarios with the standard library."""
    roots = {m.split(".")[0] for m in loaded("conveyor.agents.scripted.main")}
    assert not {"githubkit", "typer", "rich", "pydantic", "mcp", "httpx"} & roots


def test_the_scripted_agent_imports_neither_typing_nor_pathlib() -> None:
    """A quarter of its start-up was typing, pathlib and what pathlib imports (once a session)."""
    assert not {"typing", "pathlib", "dataclasses", "urllib.parse"} & loaded(
        "conveyor.agents.scripted.main"
    )


def test_the_mcp_relay_imports_only_the_standard_library_and_its_own_package() -> None:
    """`conveyor mcp-relay` starts in milliseconds: no SDK, pydantic, typer or forge client."""
    roots = {m.split(".")[0] for m in loaded("conveyor.agents.mcp_relay")}
    assert not {"mcp", "mcp_types", "pydantic", "typer", "rich", "githubkit", "anyio"} & roots
