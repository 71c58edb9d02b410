"""The MCP tool server sessions answer through (`conveyor mcp` on stdio, or the job's endpoint).

`conveyor mcp --session-dir D --reply-model NAME --role reader|writer [--session-key K]
[--control-socket S] [--checkout C] [--check-rounds 3]`; each option falls back to its
`CONVEYOR_*` variable. Tools: `submit_reply` (arguments: the reply itself, schema = the reply
model's strict schema) and, for writers, `commit` (`{paths, message}`).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from conveyor.agents.reply_gate import ReplyGate, ToolAnswer
from conveyor.core.replies import reply_model as reply_model_of
from conveyor.core.replies import reply_schema
from conveyor.core.session import SessionRole

if TYPE_CHECKING:
    import anyio
    import mcp_types

SERVER_NAME = "conveyor"
ENV_RECORD = "mcp-env.json"
COMMIT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "paths": {"type": "array", "items": {"type": "string"}},
        "message": {"type": "string"},
    },
    "required": ["message", "paths"],
    "additionalProperties": False,
}


def parse_gate(argv: list[str], env: Mapping[str, str]) -> ReplyGate:
    """Build the session's gate from the command line, falling back to the environment."""
    parser = argparse.ArgumentParser(prog="conveyor mcp")
    parser.add_argument("--session-dir", default=env.get("CONVEYOR_SESSION_DIR"))
    parser.add_argument("--reply-model", default=env.get("CONVEYOR_REPLY_MODEL"))
    parser.add_argument("--role", default=env.get("CONVEYOR_ROLE", "reader"))
    parser.add_argument("--session-key", default=env.get("CONVEYOR_SESSION_KEY", ""))
    parser.add_argument("--control-socket", default=env.get("CONVEYOR_CONTROL_SOCKET"))
    parser.add_argument("--checkout", default=env.get("CONVEYOR_CHECKOUT"))
    parser.add_argument("--check-rounds", type=int, default=3)
    args = parser.parse_args(argv)
    if not args.session_dir or not args.reply_model:
        parser.error("--session-dir and --reply-model (or their CONVEYOR_* variables) are needed")
    try:
        return make_gate(
            session_dir=Path(args.session_dir),
            reply_model=args.reply_model,
            role=args.role,
            session_key=args.session_key,
            control_socket=Path(args.control_socket) if args.control_socket else None,
            checkout=Path(args.checkout) if args.checkout else None,
            check_rounds=args.check_rounds,
        )
    except ValueError as exc:
        parser.error(str(exc))


def make_gate(
    *,
    session_dir: Path,
    reply_model: str,
    role: str,
    session_key: str = "",
    control_socket: Path | None = None,
    checkout: Path | None = None,
    check_rounds: int = 3,
) -> ReplyGate:
    """A fresh gate for one server; ValueError names an unknown reply model or role."""
    reply_model_of(reply_model)
    return ReplyGate(
        session_dir=session_dir,
        reply_model=reply_model,
        role=SessionRole(role),
        session_key=session_key,
        control_socket=control_socket,
        checkout=checkout,
        check_rounds=check_rounds,
    )


def tool_list(gate: ReplyGate) -> list[mcp_types.Tool]:
    """The tools this session sees: `commit` only for writers."""
    import mcp_types

    tools = [
        mcp_types.Tool(
            name="submit_reply",
            description=(
                "Submit your final reply. Its arguments are the reply itself, matching the "
                "schema. A reply that fails the schema or the quick checks comes back with "
                "findings: fix them and call again. End the session once it is accepted."
            ),
            input_schema=reply_schema(gate.reply_model),
        )
    ]
    if gate.role is SessionRole.WRITER:
        tools.append(
            mcp_types.Tool(
                name="commit",
                description="Commit the given paths of the checkout with a message.",
                input_schema=COMMIT_SCHEMA,
            )
        )
    return tools


def call_tool(gate: ReplyGate, name: str, arguments: dict[str, Any]) -> ToolAnswer:
    """Run one tool call against the gate."""
    if name == "submit_reply":
        return gate.submit(arguments)
    if name == "commit" and gate.role is SessionRole.WRITER:
        paths = arguments.get("paths")
        message = arguments.get("message")
        if not isinstance(paths, list) or not isinstance(message, str):
            return ToolAnswer("commit: expected {paths: [string], message: string}", error=True)
        return gate.commit([str(p) for p in paths], message)
    return ToolAnswer(f"unknown tool {name!r}", error=True)


def record_env(session_dir: Path, env: Mapping[str, str]) -> None:
    """Write the names (never the values) of the variables this server received."""
    with contextlib.suppress(OSError):
        (session_dir / ENV_RECORD).write_text(json.dumps(sorted(env)) + "\n")


async def serve(
    gate: ReplyGate,
    stdin: anyio.AsyncFile[str] | None = None,
    stdout: anyio.AsyncFile[str] | None = None,
) -> None:
    """Serve the gate's tools until the client closes the stream: stdio, or the given streams."""
    import mcp_types
    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server

    async def list_tools(ctx: Any, params: Any) -> mcp_types.ListToolsResult:
        return mcp_types.ListToolsResult(tools=tool_list(gate))

    async def run_tool(
        ctx: Any, params: mcp_types.CallToolRequestParams
    ) -> mcp_types.CallToolResult:
        answer = call_tool(gate, params.name, dict(params.arguments or {}))
        return mcp_types.CallToolResult(
            content=[mcp_types.TextContent(type="text", text=answer.text)],
            structured_content=answer.data,
            is_error=answer.error,
        )

    server: Server[Any] = Server(SERVER_NAME, on_list_tools=list_tools, on_call_tool=run_tool)
    async with stdio_server(stdin=stdin, stdout=stdout) as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def main(argv: list[str]) -> None:
    """Run the stdio MCP server for one session."""
    gate = parse_gate(argv, os.environ)
    record_env(gate.session_dir, os.environ)
    import anyio

    try:
        anyio.run(serve, gate)
    except KeyboardInterrupt:
        sys.exit(130)
    # The client closed the stream and every reply is on disk: skip the interpreter's slow
    # teardown (hundreds of modules), which the session would otherwise wait for.
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main(sys.argv[1:])
