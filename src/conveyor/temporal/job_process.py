"""A worker's stage job as a child process: started so it dies with the worker, watched by job.json.

The job is `conveyor job …` in its own session, logging to `logs/`. It is forked by the
worker's fork server (`conveyor.temporal.zygote`), or with `CONVEYOR_JOB_START=exec` exec'd
through a tiny launcher. Either way Linux sends it SIGTERM when its parent dies
(`PR_SET_PDEATHSIG`), so a killed worker never leaves its job running beside the retry on
another machine: the orphan saves its issue and pushes its commits, as on any interrupt.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path

from conveyor.job.jobfile import JOB_FILE, load_job_file
from conveyor.job.layout import job_stamp
from conveyor.temporal.forker import ForkServer, JobProcess

# argv: PARENT_PID COMMAND ARG…; dies with the parent (SIGTERM), then execs the command.
LAUNCHER = (
    "import ctypes, os, signal, sys\n"
    "libc = ctypes.CDLL(None, use_errno=True)\n"
    "libc.prctl(1, int(signal.SIGTERM), 0, 0, 0)\n"  # 1 = PR_SET_PDEATHSIG
    "if os.getppid() != int(sys.argv[1]):\n"
    "    sys.exit(1)\n"  # the worker died before the request took effect
    "os.execv(sys.argv[2], sys.argv[2:])\n"
)


def launcher_argv(command: Sequence[str]) -> list[str]:
    """The argv that runs `command` so that it gets SIGTERM when this process dies."""
    program = command[0] if Path(command[0]).is_absolute() else _which(command[0])
    return [sys.executable, "-I", "-S", "-c", LAUNCHER, str(os.getpid()), program, *command[1:]]


def _which(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        msg = f"cannot find {name!r} on PATH"
        raise FileNotFoundError(msg)
    return found


async def start_job(
    command: Sequence[str],
    args: Sequence[str],
    environ: Mapping[str, str],
    log: Path,
    forker: ForkServer | None,
) -> JobProcess:
    """Start `conveyor ARGS` in its own session, its output appended to `log`."""
    log.parent.mkdir(parents=True, exist_ok=True)
    if forker is not None and forker.process.poll() is None:
        try:
            return await forker.start(args, environ, log)
        except ConnectionError:
            pass  # the fork server has gone: exec this job, as CONVEYOR_JOB_START=exec would
    with log.open("ab") as out:
        return await asyncio.create_subprocess_exec(
            *launcher_argv([*command, *args]),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=dict(environ),
            start_new_session=True,
        )


def log_path(logs: Path, issue: int, stage: str) -> Path:
    """`logs/issue-N-<stage>-<UTC start>.log`."""
    return logs / f"issue-{issue}-{stage}-{job_stamp(datetime.now(UTC))}.log"


def find_job_dir(home: Path, issue: int, stage: str, pid: int) -> Path | None:
    """The folder whose job.json this process wrote (it writes one once it has claimed)."""
    for path in sorted((home / "jobs").glob(f"issue-{issue}-{stage}-*/{JOB_FILE}"), reverse=True):
        try:
            if load_job_file(path).pid == pid:
                return path.parent
        except (OSError, ValueError):
            continue
    return None


def read_job_json(job_dir: Path | None) -> str | None:
    """The job.json text, or None while there is none (or it cannot be read)."""
    if job_dir is None:
        return None
    try:
        return (job_dir / JOB_FILE).read_text(encoding="utf-8")
    except OSError:
        return None


def terminate(process: JobProcess) -> None:
    """SIGTERM the job (it saves its issue at its stage), unless it has already ended."""
    if process.returncode is None:
        try:
            os.kill(process.pid, signal.SIGTERM)
        except ProcessLookupError:
            return
