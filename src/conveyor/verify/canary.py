"""The shared setup's copy of the code, made unusable: a test run that imports it is known.

Setup ran once in `<envs>/<key>/tree`; an editable install made there points at that
folder, so a test command that drops the tree from `PYTHONPATH` (`python -I`, `env -i`,
tox, nox, a script) would silently test that copy instead of the tree under test. Once
setup is done, every tracked Python file of that folder is overwritten (in place, so
hard and symbolic links to it see the same) with a canary: importing it appends a line
to `<envs>/<key>/canary.log` and raises ImportError. A test run after which the log grew
reached the shared copy: its result is thrown away, the bypass is recorded for the
test command, and the tree is set up on its own (`verify.context`). The log may also
grow through another job's run at the same time; that only costs a setup in the tree.

A sandbox that binds the job's tree at `<envs>/<key>/tree` would make the editable
install import the tree itself; the canaries would then never be reached.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from conveyor.git import plain

LOG = "canary.log"
_MARK = "conveyor-canary"


def canary_source(log: Path) -> str:
    """The text every tracked Python file of the shared setup's folder is replaced with."""
    return (
        f"# {_MARK}: setup ran in this folder once, for every tree that tests this code.\n"
        "# A test run imports the tree under test, never this copy (Conveyor's README,\n"
        '# "Setup once"); importing it means the test command bypassed that tree.\n'
        "try:\n"
        f"    with open({str(log)!r}, 'a') as _conveyor_log:\n"
        "        _conveyor_log.write(__name__ + ' ' + __file__ + '\\n')\n"
        "except OSError:\n"
        "    pass\n"
        f"raise ImportError({_MARK!r} + ': ' + __file__ + ' is the shared setup copy, "
        "not the tree under test')\n"
    )


def plant(build: Path, log: Path) -> int:
    """Replace every tracked `.py` file under `build` with the canary; how many there were."""
    out = plain.git(build, "ls-files", "-z", "--", "*.py")
    text = canary_source(log)
    count = 0
    for raw in out.split(b"\0"):
        target = build / raw.decode("utf-8", errors="surrogateescape") if raw else None
        if target is not None and target.is_file() and not target.is_symlink():
            target.write_text(text)
            count += 1
    return count


def mark(env_dir: Path) -> int:
    """Where the canary log ends now (read again after a run)."""
    try:
        return (env_dir / LOG).stat().st_size
    except OSError:
        return 0


def reached_since(env_dir: Path, since: int, output: str) -> str:
    """What reached the shared copy since `since` ("" when nothing did).

    The canary's ImportError in the run's output counts too (the log may not be
    writable from where the command ran).
    """
    try:
        with (env_dir / LOG).open("rb") as log:
            log.seek(since)
            seen = log.read(4096).decode("utf-8", errors="replace").strip()
    except OSError:
        seen = ""
    if not seen and _MARK in output:
        seen = next((line.strip() for line in output.splitlines() if _MARK in line), _MARK)
    return seen


def _bypass_file(env_dir: Path, command: str) -> Path:
    return env_dir / f"bypassed-{hashlib.sha256(command.encode()).hexdigest()[:12]}.txt"


def record_bypass(env_dir: Path, command: str, seen: str) -> None:
    """Remember that `command` reaches the shared copy: later trees are set up on their own."""
    _bypass_file(env_dir, command).write_text(f"{command}\n{seen}\n")


def bypassed(env_dir: Path, command: str) -> str:
    """What showed that `command` reaches the shared copy ("" when nothing has)."""
    try:
        lines = _bypass_file(env_dir, command).read_text().splitlines()
    except OSError:
        return ""
    return lines[1] if len(lines) > 1 else "the shared copy was imported"
