"""`init --checkout` and `doctor --checkout` read the repository's ecosystems (issue 47, point 1):
the commands and `paths.tests` written for them, and a config that misses their test files."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conveyor.cli.app import app
from conveyor.cli.config_load import load_config
from conveyor.cli.ecosystem_checks import check_ecosystems
from conveyor.core.config import Config
from conveyor.core.paths import matches_any
from conveyor.emulator.app.server import ForgeServer
from conveyor.testing.world import World

CHECKOUTS = {
    "typescript": {
        "package.json": '{"name": "t", "scripts": {"test": "jest"}}',
        "tsconfig.json": "{}",
        "src/calc.ts": "export const a = 1;\n",
        "src/calc.spec.ts": "test('a', () => {});\n",
    },
    "go": {"go.mod": "module example.com/calc\n", "calc/calc_test.go": "package calc\n"},
    "rust": {"Cargo.toml": '[package]\nname = "calc"\n', "tests/mul.rs": "\n"},
    "c": {"CMakeLists.txt": "project(calc)\n", "test/args-test.cc": "int main() {}\n"},
}
RUNS = {"typescript": "jest", "go": "go test", "rust": "cargo test", "c": "ctest"}


def _checkout(root: Path, files: dict[str, str]) -> Path:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    subprocess.run(["git", "init", "-q", str(root)], check=True, timeout=30)
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True, timeout=30)
    return root


@pytest.mark.parametrize("name", sorted(CHECKOUTS))
def test_init_writes_commands_and_test_paths_for_the_checkouts_ecosystem(
    tmp_path: Path, name: str
) -> None:
    """The config loads; its test command runs the ecosystem's runner; its test files match."""
    checkout = _checkout(tmp_path / "repo", CHECKOUTS[name])
    target = tmp_path / "conveyor.toml"
    args = ["init", str(target), "--user", "bob", "--checkout", str(checkout)]
    done = CliRunner().invoke(app, args)
    assert done.exit_code == 0, done.output
    config = load_config(target)
    assert RUNS[name] in config.commands.test or name == "typescript", config.commands.test
    tests = [p for p in CHECKOUTS[name] if "test" in p and p != "tsconfig.json"]
    assert all(matches_any(p, config.paths.tests) for p in tests), config.paths.tests


def test_init_refuses_a_checkout_of_no_known_ecosystem(tmp_path: Path) -> None:
    """Nothing is written; the option is named."""
    empty = tmp_path / "empty"
    empty.mkdir()
    target = tmp_path / "conveyor.toml"
    done = CliRunner().invoke(app, ["init", str(target), "--user", "bob", "--checkout", str(empty)])
    assert done.exit_code == 2
    assert "--checkout" in done.output
    assert not target.exists()


def test_doctor_fails_on_paths_tests_that_miss_the_ecosystems_test_files(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """Python's globs on a TypeScript checkout leave `src/calc.spec.ts` out: doctor names it."""
    checkout = _checkout(tmp_path / "repo", CHECKOUTS["typescript"])
    config = {"commands": {"test": "npm test"}, "paths": {"tests": ["tests/**"]}}
    world = World.create(forge_server, tmp_path / "world", config=config)
    done = world.run("doctor", "--fix", "--checkout", str(checkout))
    assert done.returncode == 1, done.stdout
    failed = [line for line in done.stdout.splitlines() if line.startswith("FAIL")]
    assert any("paths.tests (typescript)" in line and "src/calc.spec.ts" in line for line in failed)
    assert "test runner: starts jest" in done.stdout


def test_the_checkouts_own_git_config_runs_nothing_when_its_files_are_listed(
    tmp_path: Path,
) -> None:
    """`doctor --checkout` may be pointed at a checkout an agent wrote: the fsmonitor its
    `.git/config` names does not run when its tracked files are read."""
    checkout = _checkout(tmp_path / "repo", CHECKOUTS["typescript"])
    mark = tmp_path / "ran"
    hook = tmp_path / "monitor.sh"
    hook.write_text(f"#!/bin/sh\ntouch {mark}\n")
    hook.chmod(0o755)
    subprocess.run(["git", "-C", str(checkout), "config", "core.fsmonitor", str(hook)], check=True)
    config = Config.model_validate({
        "repo": "acme/widgets",
        "account": {"login": "conveyor-bot", "token_env": "CONVEYOR_TOKEN"},
        "allowed_users": ["alice"],
        "commands": {"test": "npm test"},
        "paths": {"tests": ["src/**/*.spec.ts"]},
    })  # fmt: skip
    checks = {c.name: c for c in check_ecosystems(config, checkout)}
    assert checks["paths.tests (typescript)"].detail == "covers its 1 test files"
    assert not mark.exists()
