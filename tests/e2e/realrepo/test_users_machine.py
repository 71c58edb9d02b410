"""Issue 46, item 5: a project on a machine shaped like a user's, with the box on.

The owner's home holds a pyenv (shims, `versions/`, the project's `.python-version`) and
an nvm whose node is on PATH; pip's config names a package index on the loopback and
`~/.npmrc` an npm registry on the loopback (with a token that must not reach the box);
the setup script lies outside the checkout. Nothing in the config names a host or a
path for the box: the issue goes from triage to a merged PR, the forge's CI (with
`--ci-network registries`) installing from the same index; and a setup naming
`~/setup.sh` stops `environment` saying what the box hid and what to write instead.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from conveyor.emulator.app.server import ForgeServer
from conveyor.testing.world import World
from tests.e2e.helpers import assert_invariants, session_tasks
from tests.e2e.realrepo.project import (
    FIXED,
    open_mul_issue,
    project_world,
    whole_issue,
    write_project,
)
from tests.fake_machine import FakeMachine, install_real_node, make_fake_machine
from tests.fake_registries import Served, serve_index, serve_npm

DEPS_TEST = (
    "import subprocess\n\nimport fakepkg\n\n\n"
    "def test_the_index_package_is_installed() -> None:\n"
    "    assert fakepkg.VALUE == 'from the loopback index'\n\n\n"
    "def test_node_from_nvm_runs_the_npm_package() -> None:\n"
    "    code = \"console.log(require('fakenpm'))\"\n"
    "    done = subprocess.run(['node', '-e', code], capture_output=True, text=True)\n"
    "    assert done.stdout.strip() == 'from the loopback npm registry', done.stderr\n"
)
PACKAGE_JSON = '{"name": "calc-assets", "version": "1.0.0", "dependencies": {"fakenpm": "1.0.0"}}\n'
SETUP = """#!/bin/sh
set -e
python --version >> "$XDG_CACHE_HOME/setup-runs.txt"
python -m venv .venv
.venv/bin/pip install -q --disable-pip-version-check pytest fakepkg
npm install --no-audit --no-fund
"""
TEST = ".venv/bin/python -m pytest -q -p no:cacheprovider"
PYTHON = Path(sys.base_prefix) / "bin" / "python3"

pytestmark = pytest.mark.skipif(shutil.which("npm") is None, reason="no npm")


@pytest.fixture
def registries(wheelhouse: Path) -> Iterator[tuple[Served, Served]]:
    """A package index serving the wheelhouse (pytest and what it needs) and `fakepkg`, and
    an npm registry serving `fakenpm`, both on the loopback."""
    index, npm = serve_index(wheelhouse), serve_npm()
    yield index, npm
    index.close()
    npm.close()


def _owner(world: World, index: Served, npm: Served) -> FakeMachine:
    """The owner's machine: their home, PATH, pip and npm configuration."""
    machine = make_fake_machine(world.root / "owner")
    install_real_node(machine)
    pip_conf = machine.home / ".config" / "pip" / "pip.conf"
    pip_conf.parent.mkdir(parents=True, exist_ok=True)
    pip_conf.write_text(f"[global]\nindex-url = {index.url}/simple/\n")
    (machine.home / ".npmrc").write_text(
        f"registry={npm.url}/\n//127.0.0.1:{npm.port}/:_authToken=NPM-OWNER-SECRET\n"
    )
    world.extra_env |= {"HOME": str(machine.home), "PATH": machine.environ("/usr/bin:/bin")["PATH"]}
    return machine


def _ci_script(folder: Path, index: Served, npm: Served) -> Path:
    """The repository's CI: a venv, installs from the index and the registry, the tests."""
    script = folder / "ci.sh"
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text(
        "#!/bin/sh\nset -e\n"
        f"{PYTHON} -m venv .venv\n"
        f".venv/bin/pip install -q --disable-pip-version-check --index-url {index.url}/simple/ "
        "pytest fakepkg\n"
        f"npm install --no-audit --no-fund --registry {npm.url}/\n"
        f"{TEST}\n"
    )
    return script


def test_an_issue_merges_on_a_users_machine_with_the_box_on(
    forge_server: ForgeServer, tmp_path: Path, registries: tuple[Served, Served]
) -> None:
    """pyenv's shim picks the checkout's version for setup, nvm's node and npm install from
    the loopback registry, pip from the loopback index, the script outside the checkout
    runs, the tests import both; CI installs too; the issue merges, and the npm token was
    never in the box (the setup log has no trace of it)."""
    index, npm = registries
    scripts = tmp_path / "owner-scripts"
    setup = scripts / "setup.sh"
    setup.parent.mkdir()
    setup.write_text(SETUP)
    extra = {".python-version": "3.11.9\n", "package.json": PACKAGE_JSON}
    extra |= {
        "tests/test_deps.py": DEPS_TEST,
        ".gitignore": "build/\n__pycache__/\n.venv/\nnode_modules/\n",
    }
    src = write_project(tmp_path / "calc", extra)
    world = project_world(
        forge_server,
        tmp_path,
        commands={"setup": f"sh {setup}", "test": TEST},
        src=src,
        ci=f"sh {_ci_script(scripts, index, npm)}",
        ci_network="registries",
    )
    _owner(world, index, npm)
    world.write_scenario(whole_issue("machine"))
    number = open_mul_issue(world, "machine")

    done = world.drive(number)

    assert done.returncode == 0, done.stdout + done.stderr
    assert "agent:merged" in world.labels(number), [c.body for c in world.comments(number)]
    assert world.base_file("calc/__init__.py") == FIXED
    runs = (world.repo_home / "cache" / "setup-runs.txt").read_text().splitlines()
    assert runs == ["Python 3.11.9 (fake pyenv)"]
    assert any(p.startswith("/files/fakepkg") for p in index.asked)
    assert any(p.endswith(".tgz") for p in npm.asked)
    logs = [p.read_text(errors="replace") for p in world.home.rglob("*.log")]
    assert logs
    assert not any("NPM-OWNER-SECRET" in text for text in logs)
    assert_invariants(world, number)


def test_a_setup_naming_a_tilde_path_stops_environment_naming_what_to_write(
    forge_server: ForgeServer, tmp_path: Path, registries: tuple[Served, Served]
) -> None:
    """`bash ~/setup.sh` runs outside, not in the box (`~` is the box's home there): the
    issue stops `environment`, and the stop says what the box hid and the absolute path to
    write; the spec writer ran once and is not charged."""
    index, npm = registries
    world = project_world(forge_server, tmp_path, commands={"setup": "bash ~/setup.sh"})
    machine = _owner(world, index, npm)
    (machine.home / "setup.sh").write_text("echo set up\n")
    world.write_scenario(whole_issue("tilde"))
    number = open_mul_issue(world, "tilde")

    done = world.drive(number)

    assert done.returncode == 0, done.stdout + done.stderr
    assert world.labels(number) == ("agent:stopped-environment",)
    stops = [c.body for c in world.comments(number) if "The box explains it" in c.body]
    assert stops, [c.body for c in world.comments(number)]
    assert f"write {machine.home / 'setup.sh'}" in stops[-1]
    assert len(session_tasks(world, number, "spec")) == 1
    assert_invariants(world, number)
