"""What a process inside a real bwrap box can and cannot reach.

Each test runs the same probe bare first, so it fails if the box is taken away: what the
box denies must be reachable without it.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from conveyor.sandbox import Box, BoxPlan
from conveyor.sandbox.tools import tool_paths

pytestmark = pytest.mark.contract


@dataclass(frozen=True)
class Layout:
    """A Conveyor home with a job's checkout in it, a config folder, a token file."""

    home: Path
    checkout: Path
    config_dir: Path
    token: Path
    plan: BoxPlan


@pytest.fixture
def layout(tmp_path: Path) -> Layout:
    home = tmp_path / "conveyor-home"
    checkout = home / "runs" / "issue-7" / "repo"
    other_job = home / "runs" / "issue-8" / "repo"
    config_dir = tmp_path / "config"
    token = tmp_path / "pipeline-token"
    box_home, box_tmp = home / "jobs" / "j1" / "home", home / "jobs" / "j1" / "tmp"
    for folder in (checkout, other_job, config_dir, box_home, box_tmp):
        folder.mkdir(parents=True)
    token.write_text("ghp_secret\n")
    (config_dir / "conveyor.toml").write_text("repo = 'o/r'\n")
    (other_job / "notes.txt").write_text("another job's file\n")
    plan = BoxPlan(
        cwd=checkout,
        home=box_home,
        tmp=box_tmp,
        writable=(checkout,),
        readable=tool_paths(os.environ, (home, config_dir, token)),
        hidden=(home, config_dir, token),
    )
    return Layout(home, checkout, config_dir, token, plan)


def _run(box: Box, plan: BoxPlan, code: str) -> subprocess.CompletedProcess[str]:
    argv = box.wrap([sys.executable, "-I", "-c", code], plan)
    return subprocess.run(
        argv, capture_output=True, text=True, timeout=60, check=False, cwd=plan.cwd
    )


def _both(box: Box, plan: BoxPlan, code: str) -> tuple[str, str]:
    """The probe's output bare, then boxed."""
    bare = _run(Box("none"), plan, code)
    boxed = _run(box, plan, code)
    assert bare.returncode == 0, bare.stderr
    assert boxed.returncode == 0, boxed.stderr
    return bare.stdout.strip(), boxed.stdout.strip()


def test_a_boxed_command_cannot_signal_or_see_the_orchestrator(box: Box, layout: Layout) -> None:
    """`kill -0` of the parent's pid fails and its environ is not readable."""
    pid = os.getpid()
    code = (
        "import os\n"
        f"try:\n    os.kill({pid}, 0); print('signalled')\n"
        "except OSError: print('denied')\n"
        f"print(os.path.exists('/proc/{pid}/environ'))\n"
    )
    bare, boxed = _both(box, layout.plan, code)
    assert bare.split() == ["signalled", "True"]
    assert boxed.split() == ["denied", "False"]


def test_a_boxed_command_cannot_read_conveyor_home_config_or_token(
    box: Box, layout: Layout
) -> None:
    """Another job's file, the config folder and the token file are not there."""
    paths = [layout.home / "runs" / "issue-8" / "repo" / "notes.txt", layout.token]
    code = (
        "import os\n"
        f"for p in {[str(p) for p in paths]!r}:\n"
        "    try:\n        print(bool(open(p).read()))\n"
        "    except OSError:\n        print('absent')\n"
        f"print(os.path.exists({str(layout.config_dir / 'conveyor.toml')!r}))\n"
    )
    bare, boxed = _both(box, layout.plan, code)
    assert bare.splitlines() == ["True", "True", "True"]
    assert boxed.splitlines() == ["absent", "absent", "False"]


def test_a_boxed_command_writes_only_the_checkout_home_and_tmp(box: Box, layout: Layout) -> None:
    """Writes succeed in the checkout, $HOME and /tmp, and fail beside other jobs, next to
    the config, outside the plan and into Conveyor's own package."""
    import conveyor

    package = Path(conveyor.__file__).parent
    targets = {
        "checkout": layout.checkout / "made.txt",
        "home": layout.plan.home / "made.txt",
        "beside": layout.home / "runs" / "made.txt",
        "config": layout.config_dir / "made.txt",
        "outside": Path("/var/tmp") / f"conveyor-box-test-{os.getpid()}.txt",
        "package": package / "made-by-a-box.txt",
    }
    code = (
        "import os, tempfile\n"
        f"for name, p in { ({k: str(v) for k, v in targets.items()})!r}.items():\n"
        "    try:\n        open(p, 'w').write('x'); print(name, 'written'); os.unlink(p)\n"
        "    except OSError:\n        print(name, 'denied')\n"
        "with tempfile.NamedTemporaryFile() as f: print('tmp', f.name.startswith('/tmp/'))\n"
    )
    bare, boxed = _both(box, layout.plan, code)
    assert all(line.endswith(("written", "True")) for line in bare.splitlines())
    assert dict(line.split() for line in boxed.splitlines()) == {
        "checkout": "written",
        "home": "written",
        "beside": "denied",
        "config": "denied",
        "outside": "denied",
        "package": "denied",
        "tmp": "True",
    }


def test_a_readable_file_inside_a_writable_folder_stays_writable(
    box: Box, layout: Layout, tmp_path: Path
) -> None:
    """Past bug: a file the plan lists readable (a session's scenario) inside a folder it
    lists writable (the test world's meeting folder) was bound read-only, so a session's
    write there failed; a readable file under a hidden folder inside it stays read-only."""
    shared = tmp_path / "shared"
    scenario, kept = shared / "scenario.json", shared / "hidden" / "kept.txt"
    kept.parent.mkdir(parents=True)
    scenario.write_text("old")
    kept.write_text("kept")
    plan = BoxPlan(
        cwd=layout.checkout,
        home=layout.plan.home,
        tmp=layout.plan.tmp,
        writable=(layout.checkout, shared),
        readable=(scenario, kept, *layout.plan.readable),
        hidden=(*layout.plan.hidden, kept.parent),
    )
    code = (
        f"for p in {[str(scenario), str(kept)]!r}:\n"
        "    try:\n        open(p, 'a').write(''); print('written')\n"
        "    except OSError:\n        print('denied')\n"
        f"print(open({str(kept)!r}).read())\n"
    )
    bare, boxed = _both(box, plan, code)
    assert bare.splitlines() == ["written", "written", "kept"]
    assert boxed.splitlines() == ["written", "denied", "kept"]


@pytest.fixture
def listener() -> Iterator[int]:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    yield server.getsockname()[1]
    server.close()


def test_a_boxed_command_has_no_network(box: Box, layout: Layout, listener: int) -> None:
    """A connection to a port listening on the host's loopback fails from inside."""
    code = (
        "import socket\n"
        "try:\n"
        f"    socket.create_connection(('127.0.0.1', {listener}), timeout=5); print('connected')\n"
        "except OSError: print('refused')\n"
    )
    bare, boxed = _both(box, layout.plan, code)
    assert (bare, boxed) == ("connected", "refused")


def _running(marker: str) -> list[int]:
    """The pids (as this process sees them) whose command line holds the word `marker`."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            words = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if entry.name.isdigit() and marker.encode() in words:
            found.append(int(entry.name))
    return found


def test_a_boxed_command_that_times_out_leaves_nothing_running(
    box: Box, layout: Layout, tmp_path: Path
) -> None:
    """verify's timeout ends the box, and with it every process inside."""
    from conveyor.core.verify import Outcome
    from conveyor.verify.commands import run_command

    marker = f"{90 + os.getpid() % 1000 / 1000:.3f}"
    done = run_command(
        "slow",
        f"sleep {marker} & sleep {marker}",
        layout.checkout,
        env={"PATH": os.environ["PATH"], "HOME": str(layout.plan.home)},
        timeout_s=1.0,
        log_path=tmp_path / "slow.log",
        wrap=lambda argv: box.wrap(argv, layout.plan),
    )
    assert done.outcome is Outcome.TIMED_OUT
    deadline = time.monotonic() + 10
    while _running(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _running(marker) == []
