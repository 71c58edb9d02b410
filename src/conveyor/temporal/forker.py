"""The worker's side of the fork server (`conveyor.temporal.zygote`): start jobs, await exits."""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import socket
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

ZYGOTE_MODULE = "conveyor.temporal.zygote"


class JobProcess(Protocol):
    """A started job: `asyncio.subprocess.Process`, or a job the fork server forked."""

    @property
    def pid(self) -> int:
        """Its pid."""
        ...

    @property
    def returncode(self) -> int | None:
        """Its exit code once reaped."""
        ...

    async def wait(self) -> int:
        """Wait for its end; its exit code."""
        ...


class ForkedJob:
    """A job forked by the fork server; its exit comes back over the socket."""

    def __init__(self, pid: int, ended: asyncio.Future[int]) -> None:
        self._pid = pid
        self._ended = ended

    @property
    def pid(self) -> int:
        """Its pid."""
        return self._pid

    @property
    def returncode(self) -> int | None:
        """Its exit code once it has ended."""
        return self._ended.result() if self._ended.done() else None

    async def wait(self) -> int:
        """Wait for its end (a cancel of the waiter leaves the job alone)."""
        return await asyncio.shield(self._ended)


class ForkServer:
    """The fork server process and the requests in flight to it."""

    def __init__(self, process: subprocess.Popen[bytes], sock: socket.socket) -> None:
        self.process = process
        self.sock = sock
        self._ids = itertools.count(1)
        self._started: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._ended: dict[int, asyncio.Future[int]] = {}
        self._writer: asyncio.StreamWriter | None = None
        self._reader_task: asyncio.Task[None] | None = None

    @classmethod
    def launch(cls, environ: Mapping[str, str]) -> ForkServer:
        """Start the fork server (it preloads in the background; requests wait for it)."""
        ours, theirs = socket.socketpair()
        argv = [sys.executable, "-m", ZYGOTE_MODULE, str(theirs.fileno()), str(os.getpid())]
        process = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, pass_fds=[theirs.fileno()], env=dict(environ)
        )
        theirs.close()
        return cls(process, ours)

    async def _connect(self) -> asyncio.StreamWriter:
        if self._writer is None:
            reader, self._writer = await asyncio.open_unix_connection(sock=self.sock)
            self._reader_task = asyncio.create_task(self._read(reader))
        return self._writer

    async def _read(self, reader: asyncio.StreamReader) -> None:
        while line := await reader.readline():
            message = json.loads(line)
            if "id" in message:
                waiter = self._started.pop(int(message["id"]), None)
                if waiter is not None and not waiter.done():
                    waiter.set_result(message)
            elif "exit" in message:
                ended = self._ended.setdefault(int(message["pid"]), _future())
                if not ended.done():
                    ended.set_result(int(message["exit"]))
        gone = ConnectionError("the fork server has gone")
        for waiter in self._started.values():
            if not waiter.done():
                waiter.set_exception(gone)

    async def start(self, args: Sequence[str], env: Mapping[str, str], log: Path) -> ForkedJob:
        """Fork `conveyor ARGS` with exactly `env`, its output appended to `log`."""
        writer = await self._connect()
        request_id = next(self._ids)
        waiter: asyncio.Future[dict[str, Any]] = _future()
        self._started[request_id] = waiter
        request = {"id": request_id, "args": list(args), "env": dict(env), "log": str(log)}
        writer.write(json.dumps(request).encode() + b"\n")
        await writer.drain()
        answer = await waiter
        if "error" in answer:
            raise OSError(str(answer["error"]))
        pid = int(answer["pid"])
        return ForkedJob(pid, self._ended.setdefault(pid, _future()))

    def close(self) -> None:
        """End the fork server (its jobs get SIGTERM as it dies)."""
        self.sock.close()  # its loop has ended: the socket goes, and the server sees EOF
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def _future() -> asyncio.Future[Any]:
    return asyncio.get_running_loop().create_future()
