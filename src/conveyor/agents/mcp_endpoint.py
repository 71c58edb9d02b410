"""The job's MCP endpoint: the session's tools served on a Unix socket that `mcp-relay` joins.

The same SDK server `conveyor mcp` runs, served inside the job for the session's life: the
CLI's `initialize` is answered in about 0.08 s, where a `conveyor mcp` process per session
took about 1.2 s (`CONVEYOR_MCP=process` still starts one).
"""

from __future__ import annotations

import contextlib
import socket
import sys
from collections.abc import Callable

from conveyor.agents.mcp_server import serve
from conveyor.agents.reply_gate import ReplyGate
from conveyor.sandbox.listener import UnixListener

SOCKET_NAME = "mcp.sock"


class McpEndpoint(UnixListener):
    """A listening socket; each connection gets a fresh gate and SDK server on its own thread.

    The socket sits in a private folder (mode 0700) under a short temp folder, so its path
    fits a Unix socket whatever the session folder's length; the socket itself is 0600.
    """

    def __init__(self, gate_factory: Callable[[], ReplyGate]) -> None:
        self._gate_factory = gate_factory
        super().__init__("cv-mcp-", SOCKET_NAME, backlog=8, name="mcp-endpoint")

    def serve(self, conn: socket.socket) -> None:
        import anyio

        reader = conn.makefile("r", encoding="utf-8", errors="replace", newline="\n")
        writer = conn.makefile("w", encoding="utf-8", newline="\n")
        try:
            gate = self._gate_factory()
            anyio.run(serve, gate, anyio.wrap_file(reader), anyio.wrap_file(writer))
        except Exception as exc:  # noqa: BLE001 - a dropped relay ends its own connection only
            sys.stderr.write(f"conveyor: an MCP connection ended early: {exc!r}\n")
        finally:
            for closing in (reader.close, writer.close):
                with contextlib.suppress(OSError):
                    closing()

    def __enter__(self) -> McpEndpoint:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
