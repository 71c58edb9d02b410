"""The MCP tool server sessions answer through (`conveyor mcp`)."""

from __future__ import annotations


def main(argv: list[str]) -> None:
    """Run the stdio MCP server."""
    raise SystemExit("conveyor mcp: not built yet")
