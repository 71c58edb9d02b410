"""Where Conveyor keeps its files: `$CONVEYOR_HOME/<owner>__<repo>/` and each stage job's
folders under it (DESIGN.md). `repo_home` is the one answer to "where", for the jobs, the
orchestrator and every reader (`status`, `cost`, `live`, `transcript`, the worker, the demo).
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import socket
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path, PurePath

from conveyor.core.config import Config, home_path
from conveyor.job.jobfile import JOB_FILE, load_job_file, process_start_ticks

LANE_FILE = "lane"
MAX_SOCKET_PATH = 100
_LANE_CHARS = re.compile(r"[^A-Za-z0-9._-]+")


def _user_home(environ: Mapping[str, str]) -> str:
    """The owner's home: `$HOME`, else the password database's."""
    return environ.get("HOME") or str(Path("~").expanduser())


def _expanded(chosen: PurePath, user_home: str, config_dir: Path | None) -> Path:
    """`chosen` with a leading `~` (or `~name`) expanded; a relative config `home` lies
    in the config's folder, as `account.token_file` does."""
    text = str(chosen)
    if text == "~" or text.startswith("~/"):
        path = Path(user_home + text[1:])
    else:
        path = Path(chosen).expanduser()  # `~name/...`: that account's home
    if not path.is_absolute() and config_dir is not None:
        path = config_dir / path
    return path


def conveyor_home(config: Config, environ: Mapping[str, str], config_dir: Path) -> Path:
    """`$CONVEYOR_HOME`: the config's `home` key, else the variable, else
    `~/.local/share/conveyor`; `~` expanded, a relative `home` in `config_dir`."""
    user_home = _user_home(environ)
    chosen = home_path(config, environ.get("CONVEYOR_HOME"), user_home)
    return _expanded(chosen, user_home, config_dir if config.home else None)


def repo_home(config: Config, environ: Mapping[str, str], config_dir: Path) -> Path:
    """`$CONVEYOR_HOME/<owner>__<repo>`: this repository's folder, the same for the job, the
    orchestrator and every reader of its files (`config_dir`: the config file's folder)."""
    return conveyor_home(config, environ, config_dir) / config.repo_dirname


def load_lane(home: Path) -> str:
    """This machine's lane id, created once as `<hostname>-<8 random hex>`."""
    path = home / LANE_FILE
    if path.is_file() and (text := path.read_text().strip()):
        return text
    host = _LANE_CHARS.sub("-", socket.gethostname()).strip("-") or "host"
    lane = f"{host}-{secrets.token_hex(4)}"
    home.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{LANE_FILE}.{os.getpid()}.tmp")
    tmp.write_text(lane + "\n")
    try:
        os.link(tmp, path)  # fails when another job created it first: theirs wins
    except FileExistsError:
        tmp.unlink()
        return path.read_text().strip()
    tmp.unlink()
    return lane


@dataclass(frozen=True)
class JobPaths:
    """One job's folders: its own, the issue's run folder, the checkout, the sessions."""

    home: Path
    job_id: str
    job_dir: Path
    run_dir: Path

    @property
    def checkout(self) -> Path:
        """`repo/`, removed when the job exits."""
        return self.job_dir / "repo"

    @property
    def sessions(self) -> Path:
        """`sessions/`, kept after exit."""
        return self.job_dir / "sessions"

    @property
    def control_socket(self) -> Path:
        """`control.sock`, or a short path in the temp folder when that one is too long.

        A Unix socket's path must fit in about 100 bytes; deep homes pass that, so
        the socket then lives under the temp folder (named by a hash of the job
        folder) and `control.sock` in the job folder is a symlink to it.
        """
        natural = self.job_dir / "control.sock"
        if len(os.fsencode(natural)) <= MAX_SOCKET_PATH:
            return natural
        digest = hashlib.sha256(os.fsencode(self.job_dir)).hexdigest()[:20]
        return Path(tempfile.gettempdir()) / f"conveyor-{digest}.sock"

    @property
    def job_file(self) -> Path:
        """`job.json`."""
        return self.job_dir / JOB_FILE


def job_stamp(moment: datetime) -> str:
    """A job folder's UTC start, `YYYYMMDDTHHMMSSZ`."""
    return moment.strftime("%Y%m%dT%H%M%SZ")


def free_job_id(home: Path, issue: int, stage: str, stamp: str) -> str:
    """`issue-N-<stage>-<stamp>`, with a `.N` suffix when a job folder of that name exists."""
    base = f"issue-{issue}-{stage}-{stamp}"
    job_id, n = base, 0
    while (home / "jobs" / job_id).exists():
        n += 1
        job_id = f"{base}.{n}"
    return job_id


def make_job_paths(home: Path, issue: int, stage: str, start: datetime) -> JobPaths:
    """Create `jobs/issue-N-<stage>-<UTC start>/` (a suffix when that second is taken)."""
    jobs = home / "jobs"
    jobs.mkdir(parents=True, exist_ok=True)
    base = f"issue-{issue}-{stage}-{job_stamp(start)}"
    for n in range(100):
        job_id = base if n == 0 else f"{base}.{n}"
        try:
            (jobs / job_id).mkdir()
        except FileExistsError:
            continue
        return JobPaths(home, job_id, jobs / job_id, home / "runs" / f"issue-{issue}")
    msg = f"cannot create a job folder {base} under {jobs}"
    raise RuntimeError(msg)


def job_alive(job_dir: Path) -> bool:
    """Whether the job of `job_dir` still runs (its pid with the same process start time)."""
    try:
        record = load_job_file(job_dir / JOB_FILE)
    except (OSError, ValueError):
        return False
    if record.finished is not None:
        return False
    try:
        os.kill(record.pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return process_start_ticks(record.pid) == record.process_start


def leftover_checkouts(home: Path, issue: int, own: Path) -> list[Path]:
    """`repo/` folders of this issue's earlier jobs that no longer run, oldest first."""
    jobs = home / "jobs"
    if not jobs.is_dir():
        return []
    found = []
    for job_dir in sorted(jobs.glob(f"issue-{issue}-*"), key=lambda d: d.name.rsplit("-", 1)[-1]):
        repo = job_dir / "repo"
        if job_dir != own and repo.is_dir() and not job_alive(job_dir):
            found.append(repo)
    return found
