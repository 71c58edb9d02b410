"""What the image's build steps make, checked without a container builder (none here): the
script the Dockerfile runs as root gives CONVEYOR_HOME (the named volume's mount point) to
uid 10001, the entry point refuses a home it does not own and otherwise runs `conveyor`, and
the Dockerfile, compose file, systemd unit and README agree (issue 48)."""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.contract
ROOT = Path(__file__).resolve().parents[3]
RECIPE = ROOT / "contrib" / "container"
DOCKERFILE = (ROOT / "Dockerfile").read_text(encoding="utf-8")
COMPOSE = (RECIPE / "compose.yaml").read_text(encoding="utf-8")
README = (ROOT / "README.md").read_text(encoding="utf-8")
UNIT = (ROOT / "contrib" / "systemd" / "conveyor.service").read_text(encoding="utf-8")
HOME = "/home/conveyor/home"
SECURITY = ("seccomp=unconfined", "apparmor=unconfined", "systempaths=unconfined")


def _final_stage() -> str:
    return re.split(r"^FROM ", DOCKERFILE, flags=re.MULTILINE)[-1]


def _as_root(command: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Run as root, or under fakeroot (chown then only pretends: stat inside sees it)."""
    if os.geteuid() != 0:
        fake = shutil.which("fakeroot")
        if fake is None:
            pytest.skip("neither root nor fakeroot: chown to uid 10001 cannot be tried")
        command = [fake, *command]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=60, check=False)


def test_the_build_step_gives_conveyor_home_and_the_login_folders_to_uid_10001(
    tmp_path: Path,
) -> None:
    """prepare-home under ROOT: every folder exists, is owned 10001:10001, private."""
    listing = 'find "$ROOT/home/conveyor" -exec stat -c "%u:%g %a %n" {} +'
    script = f'"{RECIPE / "prepare-home"}" && {listing}'
    done = _as_root(["sh", "-c", script], {"ROOT": str(tmp_path), "PATH": os.environ["PATH"]})
    assert done.returncode == 0, done.stderr
    seen = {line.split(" ", 2)[2]: line.split(" ", 2)[:2] for line in done.stdout.splitlines()}
    home = f"{tmp_path}{HOME}"
    assert seen[home] == ["10001:10001", "700"]
    for folder in (".claude", ".codex", ".local/share/opencode", ".config/conveyor"):
        assert seen[f"{tmp_path}/home/conveyor/{folder}"][0] == "10001:10001"
    assert all(owner == "10001:10001" for owner, _ in seen.values())


def test_the_dockerfile_runs_that_step_as_root_then_runs_as_10001_with_the_volume_there() -> None:
    """The recipe's order: user 10001 made, prepare-home run, then USER; HOME, CONVEYOR_HOME
    and the VOLUME name one folder, the one prepare-home makes."""
    last = _final_stage()
    made = last.index("/opt/conveyor-image/prepare-home\n")
    assert "--uid 10001" in last[:made]
    assert last.index("USER conveyor") > made
    assert f"CONVEYOR_HOME={HOME}" in last
    assert f'VOLUME ["{HOME}"]' in last
    assert "COPY contrib/container/prepare-home contrib/container/entrypoint" in last


def _entry(home: Path, bin_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"CONVEYOR_HOME": str(home), "PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(home)}
    return subprocess.run(
        ["sh", str(RECIPE / "entrypoint"), *args], env=env, capture_output=True, text=True,
        timeout=60, check=False,
    )  # fmt: skip


def test_the_entry_point_runs_conveyor_with_its_arguments_in_a_home_it_owns(tmp_path: Path) -> None:
    """A stand-in `conveyor` on PATH receives exactly the container's arguments."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "conveyor"
    fake.write_text('#!/bin/sh\necho "conveyor $*"\n')
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    home = tmp_path / "home"
    home.mkdir()
    ran = _entry(home, bin_dir, "run", "--until-idle")
    assert (ran.returncode, ran.stdout) == (0, "conveyor run --until-idle\n"), ran.stderr


def test_the_entry_point_refuses_a_home_owned_by_someone_else_saying_the_fix(
    tmp_path: Path,
) -> None:
    """A volume an older image made belongs to root: exit 2 at once, naming the chown."""
    if os.geteuid() != 0:
        pytest.skip("giving a folder to another uid needs root")
    home = tmp_path / "home"
    home.mkdir()
    os.chown(home, 12345, 12345)
    refused = _entry(home, tmp_path, "run")
    assert refused.returncode == 2
    assert f"CONVEYOR_HOME={home} is owned by uid 12345, not uid 0" in refused.stderr
    assert "--entrypoint chown" in refused.stderr
    missing = _entry(tmp_path / "nowhere", tmp_path, "run")
    assert missing.returncode == 2
    assert "is not a folder" in missing.stderr


def test_compose_and_readme_give_the_volume_the_security_options_and_the_agents_keys() -> None:
    """The three predicted failures are answered where a person copies the command from."""
    assert f"conveyor-home:{HOME}" in COMPOSE
    assert f"conveyor-home:{HOME}" in README
    for option in SECURITY:
        assert f"- {option}" in COMPOSE
        assert f"--security-opt {option}" in DOCKERFILE
        assert option in README
    for key in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "CONVEYOR_TOKEN"):
        assert f"{key}:" in COMPOSE


def test_the_install_line_and_the_systemd_unit_name_the_same_place() -> None:
    """pipx and uv tool both install into ~/.local/bin, which the unit runs."""
    assert "ExecStart=%h/.local/bin/conveyor run" in UNIT
    assert "pipx install PATH/TO/conveyor" in README
    assert "uv tool install PATH/TO/conveyor" in README
    assert "python3 -m venv ~/conveyor" not in README
