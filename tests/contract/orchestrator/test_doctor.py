"""`conveyor doctor` against the embedded forge: each failure named, `--fix` creates the labels."""

from __future__ import annotations

import subprocess
from pathlib import Path

from conveyor.emulator.app.server import ForgeServer
from conveyor.job.entry import conveyor_argv
from conveyor.testing.world import TRUSTED, VISITOR, World


def _failed(output: str) -> list[str]:
    return [line.split(":", 1)[0].removeprefix("FAIL ") for line in output.splitlines()
            if line.startswith("FAIL")]  # fmt: skip


def test_doctor_names_the_missing_labels_and_fix_creates_them(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """A fresh repository lacks the pipeline's labels: doctor fails on them; `--fix` mends it."""
    world = World.create(forge_server, tmp_path / "world", config={"commands": {"test": "true"}})
    before = world.run("doctor")
    assert before.returncode == 1, before.stdout + before.stderr
    assert _failed(before.stdout) == ["labels"]
    fixed = world.run("doctor", "--fix")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    again = world.run("doctor")
    assert again.returncode == 0, again.stdout + again.stderr
    assert "ok   account" in again.stdout


def test_doctor_fails_on_a_user_who_is_not_a_collaborator_and_a_missing_command(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """An allowed user without access and a test program that does not exist are both named."""
    world = World.create(
        forge_server,
        tmp_path / "world",
        config={
            "allowed_users": [TRUSTED, VISITOR],
            "commands": {"test": "no-such-program-for-conveyor --quick"},
        },
    )
    done = world.run("doctor", "--fix")
    assert done.returncode == 1
    assert _failed(done.stdout) == ["commands.test", f"allowed user {VISITOR}"]


def test_doctor_reports_a_bad_config_and_exits_2(tmp_path: Path) -> None:
    """A config with an unknown key fails the doctor's first check, naming the key; exit 2, as
    every command exits on a config mistake (issue 48)."""
    config = tmp_path / "conveyor.toml"
    config.write_text('repo = "a/b"\nsurprise = 1\n')
    done = subprocess.run(
        [*conveyor_argv(), "doctor", "--config", str(config)],
        capture_output=True, text=True, check=False, env={"PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert done.returncode == 2
    assert "FAIL config" in done.stdout
    assert "surprise: unknown key" in done.stdout


def test_doctor_refuses_a_config_inside_a_repository_naming_the_path_and_why(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """The config's folder made a git repository: the config check fails, naming both, and
    the doctor stops there with the config mistakes' code."""
    world = World.create(forge_server, tmp_path / "world", config={"commands": {"test": "true"}})
    folder = world.config_path.parent
    subprocess.run(["git", "init", "-q", str(folder)], check=True, timeout=30)
    done = world.run("doctor", "--fix")
    assert done.returncode == 2
    assert _failed(done.stdout) == ["config"]
    (refusal,) = [line for line in done.stdout.splitlines() if line.startswith("FAIL config")]
    assert str(world.config_path) in refusal
    assert f"inside the git repository {folder.resolve()}" in refusal
    assert "agents could change the rules" in refusal
