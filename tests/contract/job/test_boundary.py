"""`conveyor job --print-boundary`: the role, checkout, session environment names and network."""

from __future__ import annotations

import json
import os
from pathlib import Path

from conveyor.testing.world import TOKEN_ENV, World
from tests.fake_machine import make_fake_machine

SECRETS = {
    "GH_TOKEN": "gh-secret-1",
    "GITHUB_TOKEN": "gh-secret-2",
    "CONVEYOR_TEST_SECRET": "canary-secret-3",
}


def test_the_boundary_names_no_token_variable_and_starts_nothing(world: World) -> None:
    """The boundary line lists sorted names only, none of them a token, and creates nothing."""
    world.extra_env.update(SECRETS | {"ANTHROPIC_API_KEY": "model-key", "LANG": "C.UTF-8"})
    done = world.job(1, "triage", "--print-boundary")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 1
    boundary = json.loads(lines[0])
    assert boundary["role"] == "reader"
    names = boundary["env"]
    assert names == sorted(names)
    assert "ANTHROPIC_API_KEY" in names
    assert not {*SECRETS, TOKEN_ENV} & set(names)
    for value in [*SECRETS.values(), world.tokens["conveyor-bot"], "model-key"]:
        assert value not in done.stdout
    assert boundary["network"] == ["api.anthropic.com"]
    assert boundary["checkout"].endswith("/repo")
    assert not (world.repo_home / "jobs").exists()


def test_a_real_session_gets_no_token_and_no_file_of_the_job_holds_one(world: World) -> None:
    """A triage session's environment (as the scripted agent records it) has no token."""
    answer: dict[str, object] = {
        "decision": "ready",
        "notes": "Small.",
        "questions": [],
        "reason": None,
    }
    world.write_scenario(
        [
            {
                "tag": "env",
                "kind": "triage",
                "turns": [{"actions": [{"reply": answer | {"summary": "ok"}}]}],
            }
        ]
    )
    world.extra_env.update(SECRETS)
    issue = world.open_issue("Add a low-stock report [env]", "List items below N.")
    done = world.job(issue.number, "triage")
    assert done.returncode == 0, done.stderr
    (job_dir,) = (world.repo_home / "jobs").glob(f"issue-{issue.number}-triage-*")
    recorded = list(job_dir.glob("sessions/*/agent-env.json"))
    assert recorded
    for path in recorded:
        names = set(json.loads(path.read_text()))
        assert "CONVEYOR_ISSUE" in names
        assert not {*SECRETS, TOKEN_ENV} & names
    secrets = [*SECRETS.values(), world.tokens["conveyor-bot"]]
    # The job's checkout may still be going from the home's trash/ (deleted after the job):
    # what is still there is read, what went meanwhile is skipped (os.walk skips a gone folder).
    for folder, _, files in os.walk(world.home):
        for path in (Path(folder) / name for name in files):
            if not path.is_file() or path.is_symlink():
                continue
            try:
                data = path.read_bytes()
            except FileNotFoundError:
                continue
            assert not any(s.encode() in data for s in secrets), path


def test_the_boundary_draws_the_box_the_jobs_commands_run_in(world: World) -> None:
    """Conveyor's home and the config folder hidden, the checkout and logs writable, the setup
    only given the caches and, with `setup_network`, the network; its own pid namespace."""
    world.write_config({"sandbox": {"setup_network": ["pypi.org"]}})
    world.repo_home.mkdir(parents=True)  # a hidden path that does not exist needs no cover
    done = world.job(1, "implement", "--print-boundary")
    assert done.returncode == 0, done.stderr
    sandbox = json.loads(done.stdout)["sandbox"]
    commands, setup = sandbox["commands"], sandbox["setup"]
    access = {m["path"]: m["access"] for m in commands["mounts"]}
    checkout = json.loads(done.stdout)["checkout"]
    assert commands["mode"] == "bwrap"
    assert access[str(world.home.resolve())] == "hidden"
    assert access[str(world.config_path.parent.resolve())] == "hidden"
    assert access[checkout] == "rw"
    assert access[str(world.repo_home / "cache")] == "ro"
    assert commands["network"] == "own loopback only"
    assert commands["pid_namespace"].startswith("own")
    setup_access = {m["path"]: m["access"] for m in setup["mounts"]}
    assert setup_access[str(world.repo_home / "cache")] == "rw"
    assert setup["network"] == "own loopback, out only through the allowlisting proxy"
    assert setup["allow"] == ["pypi.org"]
    assert not (world.repo_home / "jobs").exists()


def test_the_boundary_says_what_was_given_back_and_why_and_what_was_not(world: World) -> None:
    """Issue 46: with a user's home (pyenv, nvm, a hand-installed tool), `[sandbox]
    readable` and `caches`, and a setup script in the config folder, the commands' box
    shows pyenv's root read-only saying why, the readable path, the cache writable, the
    home itself absent, and names the script it would not give under `not_given`."""
    machine = make_fake_machine(world.root / "owner")
    script = world.config_path.parent / "setup.sh"
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text("echo setup\n")
    world.extra_env |= {
        "HOME": str(machine.home),
        "PATH": machine.environ(os.environ["PATH"])["PATH"],
    }
    world.write_config(
        {
            "commands": {"setup": f"bash {script}", "test": "python -m pytest"},
            "sandbox": {"readable": ["~/notes"], "caches": ["~/.cache/go-build"]},
        }
    )
    (machine.home / "notes").mkdir()
    done = world.job(1, "implement", "--print-boundary")
    assert done.returncode == 0, done.stderr
    sandbox = json.loads(done.stdout)["sandbox"]
    mounts = {m["path"]: m for m in sandbox["commands"]["mounts"]}
    assert mounts[str(machine.pyenv.resolve())]["access"] == "ro"
    assert "pyenv" in mounts[str(machine.pyenv.resolve())]["why"]
    assert mounts[str((machine.home / "notes").resolve())]["why"] == "[sandbox] readable"
    assert mounts[str((machine.home / ".cache" / "go-build").resolve())]["access"] == "rw"
    assert mounts[str(machine.home.resolve())]["access"] == "hidden"
    refused = {entry["path"]: entry["why"] for entry in sandbox["not_given"]}
    assert str(script) in refused
    session = json.loads(done.stdout)["session_sandbox"]
    session_mounts = {m["path"]: m["access"] for m in session["mounts"]}
    assert session_mounts[str(machine.pyenv.resolve())] == "ro"
