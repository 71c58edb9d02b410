"""The embedded forge's CI can reach package registries like a hosted runner (issue 46,
item 4): none by default, its tools' registries or named hosts when asked, boxed."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conveyor.emulator.app.server import ForgeServer
from conveyor.job.entry import conveyor_argv
from tests.contract.emulator_repos.conftest import GitWorld, make_git_world, open_pr, wait_for
from tests.fake_registries import Served, serve_index

PYTHON = Path(sys.base_prefix) / "bin" / "python3"


@pytest.fixture
def index() -> Iterator[Served]:
    served = serve_index()
    yield served
    served.close()


def _install(index: Served) -> str:
    """A CI command as a real project's: install from the index, then use what it installed."""
    return (
        f"{PYTHON} -m pip install --no-cache-dir --disable-pip-version-check --target deps "
        f"--index-url {index.url}/simple/ fakepkg && "
        f"{PYTHON} -c \"import sys; sys.path.insert(0, 'deps'); import fakepkg; "
        "print('installed:', fakepkg.VALUE)\""
    )


def _summary(gw: GitWorld, branch: str) -> tuple[str, str]:
    """Push `branch`, open its PR and wait for its CI run: its conclusion and log tail."""
    with gw.client(gw.writer_token) as client:
        sha = gw.push_branch(branch, {f"{branch}.txt": "x\n"}, branch)
        open_pr(client, gw, branch)

        def done() -> dict[str, Any] | None:
            runs = client.get(
                f"{gw.repo_path}/commits/{sha}/check-runs", params={"check_name": "ci"}
            ).json()["check_runs"]
            return runs[0] if runs and runs[0]["status"] == "completed" else None

        run: dict[str, Any] = wait_for(done, timeout_s=120)
    return str(run["conclusion"]), str(run["output"]["summary"])


def _has_pip() -> bool:
    done = subprocess.run([PYTHON, "-m", "pip", "--version"], capture_output=True, check=False)
    return done.returncode == 0


pytestmark = [pytest.mark.contract, pytest.mark.skipif(not _has_pip(), reason="no pip")]


def test_by_default_the_ci_reaches_no_registry(
    forge_server: ForgeServer, tmp_path: Path, index: Served
) -> None:
    """No network named: the install fails in the box (the demo's CI needs none)."""
    gw = make_git_world(forge_server, tmp_path, ci=_install(index))
    conclusion, summary = _summary(gw, "closed")
    assert conclusion == "failure", summary
    assert "installed:" not in summary


def test_a_repository_whose_ci_reaches_its_tools_registries_installs_and_passes(
    forge_server: ForgeServer, tmp_path: Path, index: Served
) -> None:
    """`--ci-network registries`: the index the CI command's pip names is reachable, the
    install and the import pass, boxed."""
    gw = make_git_world(forge_server, tmp_path, ci=_install(index), ci_network="registries")
    conclusion, summary = _summary(gw, "open")
    assert conclusion == "success", summary
    assert "installed: from the loopback index" in summary
    assert any(path.startswith("/files/") for path in index.asked)


def test_named_hosts_are_the_only_ones_and_a_refused_one_is_named_in_the_log(
    forge_server: ForgeServer, tmp_path: Path, index: Served
) -> None:
    """`--ci-network 127.0.0.1:PORT` reaches the index; a host it does not name is refused by
    the proxy, and the log's end names it."""
    fetch = (
        f'{PYTHON} -c "import urllib.request; '
        "urllib.request.urlopen('http://elsewhere.example/', timeout=5)\""
    )
    command = f"{_install(index)} && {fetch}"
    gw = make_git_world(forge_server, tmp_path, ci=command, ci_network=f"127.0.0.1:{index.port}")
    conclusion, summary = _summary(gw, "named")
    assert "installed: from the loopback index" in summary
    assert conclusion == "failure"
    assert "the CI's box blocked elsewhere.example:80" in summary


def test_the_servers_default_network_applies_to_repositories_that_name_none(
    tmp_path: Path, index: Served
) -> None:
    """`forge serve --ci-network registries` (here the server's option): a repository that
    names none gets it."""
    with ForgeServer(tmp_path / "forge", ci_network="registries") as server:
        gw = make_git_world(server, tmp_path, ci=_install(index))
        conclusion, summary = _summary(gw, "default")
    assert conclusion == "success", summary


def test_a_bad_ci_network_is_refused_naming_the_value(tmp_path: Path) -> None:
    """A URL where hosts belong: `create-repo` fails with one line naming it."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.txt").write_text("a\n")
    done = subprocess.run(
        [*conveyor_argv(), "forge", "create-repo", "--data", str(tmp_path / "forge"),
         "o/r", "--from", str(src), "--ci", "true", "--ci-network", "https://pypi.org/simple"],
        capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip
    assert done.returncode == 1
    assert "https://pypi.org/simple" in done.stderr
    assert "`none`, `registries` or host names" in done.stderr
