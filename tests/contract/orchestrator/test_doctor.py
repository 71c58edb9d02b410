"""`conveyor doctor` against the embedded forge: each failure named, `--fix` creates the labels."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from conveyor.emulator.app.server import ForgeServer
from conveyor.job.entry import conveyor_argv
from conveyor.testing.world import TRUSTED, VISITOR, World
from tests.fake_machine import make_fake_machine, write_script


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
    assert _failed(done.stdout) == ["commands.test", f"allowed user {VISITOR}", "box trial"]


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


def _owner_home(world: World) -> Path:
    home = world.root / "owner"
    home.mkdir(parents=True, exist_ok=True)
    world.extra_env["HOME"] = str(home)
    return home


def test_doctors_box_trial_runs_setup_and_tests_with_the_owners_tools(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """Issue 46, item 3: a setup script outside the checkout and a test command through a
    tool from a fake pyenv under the owner's home both run in the box on the base branch."""
    world = World.create(forge_server, tmp_path / "world", config={"commands": {"test": "true"}})
    machine = make_fake_machine(_owner_home(world))
    script = tmp_path / "scripts" / "setup.sh"
    script.parent.mkdir()
    script.write_text("#!/bin/sh\necho set up\n")
    world.extra_env["PATH"] = machine.environ(os.environ["PATH"])["PATH"]
    world.write_config({"commands": {"setup": f"sh {script}", "test": "python --version"}})
    done = world.run("doctor", "--fix")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert any(line.startswith("ok   box trial: setup") for line in lines)
    assert any(line.startswith("ok   box trial: test") for line in lines)


def test_doctors_box_trial_names_what_the_box_hid_with_the_line_that_fixes_it(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """A setup naming `~/setup.sh` fails in the box (`~` is the box's home): the doctor fails
    the trial and names the absolute path to write; a test command reaching a tool in a
    folder nothing names is named with its `readable` line."""
    world = World.create(forge_server, tmp_path / "world", config={"commands": {"test": "true"}})
    home = _owner_home(world)
    (home / "setup.sh").write_text("echo set up\n")
    done = world.run("doctor", "--fix")
    assert done.returncode == 0, done.stdout + done.stderr  # no setup yet: nothing to fail
    world.write_config({"commands": {"setup": "bash ~/setup.sh", "test": "true"}})
    done = world.run("doctor", "--fix")
    assert _failed(done.stdout) == ["box trial"]
    assert f"write {home / 'setup.sh'}" in done.stdout
    tool = write_script(home / "hand" / "bin" / "gen", "#!/bin/sh\necho gen\n")
    runner = tmp_path / "scripts" / "test.sh"
    runner.parent.mkdir()
    runner.write_text(f"#!/bin/sh\n{tool}\n")
    world.write_config({"commands": {"test": f"sh {runner}"}})
    done = world.run("doctor", "--fix")
    assert _failed(done.stdout) == ["box trial"]
    hand = home / "hand"
    assert f'readable = ["{hand}"]' in done.stdout
