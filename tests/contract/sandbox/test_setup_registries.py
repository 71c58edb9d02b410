"""Setup reaches its tools' registries without hand work (issue 46, item 2): with no
`setup_network`, the box lets through the index the owner's pip and npm are set up for,
and a setup that names no registry tool's index is told which host to add."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from conveyor.cli.config_load import parse_config
from conveyor.job.boundary import command_env
from conveyor.job.box_plans import base_plan, command_boxing, hidden_paths, make_folders
from conveyor.sandbox import Box
from conveyor.verify.context import Context
from tests.fake_registries import Served, serve_index, serve_npm

pytestmark = pytest.mark.contract
PIP = Path(sys.base_prefix) / "bin" / "python3"
CONFIG = """
repo = "octo/widgets"
allowed_users = ["alice"]
[account]
login = "conveyor-bot"
token_env = "CONVEYOR_TOKEN"
[commands]
test = "true"
setup = {setup!r}
{sandbox}
"""


def _has_pip() -> bool:
    done = subprocess.run([PIP, "-m", "pip", "--version"], capture_output=True, check=False)
    return done.returncode == 0


@pytest.fixture
def index() -> Iterator[Served]:
    served = serve_index()
    yield served
    served.close()


def _context(
    box: Box, tmp_path: Path, environ: dict[str, str], setup: str, sandbox: str = ""
) -> Context:
    config = parse_config(CONFIG.format(setup=setup, sandbox=sandbox), "conf.toml")
    job_dir = tmp_path / "home" / "octo__widgets" / "jobs" / "j1"
    checkout = job_dir / "repo"
    checkout.mkdir(parents=True)
    (checkout / "package.json").write_text(
        json.dumps({"name": "app", "version": "1.0.0", "dependencies": {"fakenpm": "1.0.0"}})
    )
    hidden = hidden_paths(config, tmp_path / "config", environ, tmp_path / "home" / "octo__widgets")
    plan = make_folders(base_plan(config, job_dir, checkout, hidden, environ))
    boxing = command_boxing(box, config, plan, environ)
    env = command_env(config, environ, home=plan.home, git_config=job_dir / "gitconfig")
    return Context(checkout, config.commands, env, job_dir / "logs", boxing=boxing)


@pytest.mark.skipif(not _has_pip(), reason="no pip beside the base interpreter")
def test_setup_reaches_the_index_pip_is_set_up_for(box: Box, tmp_path: Path, index: Served) -> None:
    """`PIP_INDEX_URL` names a loopback index: setup's pip installs from it in the box, with
    no `setup_network` written; with `setup_network = []` the same setup is blocked and
    told the host to add."""
    owner = tmp_path / "owner"
    owner.mkdir()
    environ = {"HOME": str(owner), "PATH": os.environ["PATH"]}
    environ["PIP_INDEX_URL"] = f"{index.url}/simple/"
    setup = f"{PIP} -m pip install --no-cache-dir --disable-pip-version-check --target deps fakepkg"
    ctx = _context(box, tmp_path / "a", environ, setup)
    result = ctx.run("setup", setup, setup=True)
    assert result.ok, result.tail
    assert (ctx.checkout / "deps" / "fakepkg" / "__init__.py").is_file()
    assert f"/files/{'fakepkg-1.0-py3-none-any.whl'}" in index.asked
    closed = _context(box, tmp_path / "b", environ, setup, "[sandbox]\nsetup_network = []")
    refused = closed.run("setup", setup, setup=True)
    assert not refused.ok
    host = f"127.0.0.1:{index.port}"
    assert any(f'add "{host}" to `setup_network`' in line for line in refused.box), refused.box


@pytest.mark.skipif(shutil.which("npm") is None, reason="no npm")
def test_setup_reaches_the_registry_the_owners_npmrc_names(box: Box, tmp_path: Path) -> None:
    """The owner's `~/.npmrc` names a loopback registry (and a token for it): `npm install`
    in the box installs from it with no `setup_network` written, and the token is not in
    the box (the box's HOME is its own; only the registry line is passed on)."""
    registry = serve_npm()
    try:
        owner = tmp_path / "owner"
        owner.mkdir()
        (owner / ".npmrc").write_text(
            f"registry={registry.url}/\n//127.0.0.1:{registry.port}/:_authToken=NPM-SECRET\n"
        )
        environ = {"HOME": str(owner), "PATH": os.environ["PATH"]}
        setup = "npm install --no-audit --no-fund && npm config get registry && env"
        ctx = _context(box, tmp_path, environ, setup)
        result = ctx.run("setup", setup, setup=True)
        assert result.ok, result.tail
        assert (ctx.checkout / "node_modules" / "fakenpm" / "index.js").is_file()
        log = Path(result.log_path or "").read_text()
        assert f"{registry.url}/" in log
        assert "NPM-SECRET" not in log
    finally:
        registry.close()
