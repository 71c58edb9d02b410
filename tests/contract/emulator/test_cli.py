"""`conveyor forge …` as a person types it: serve, add-user, -collaborator, -app, create-repo."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from conveyor.cli.forge_cmd import app
from conveyor.emulator.app.server import ForgeServer
from conveyor.testing import http

CONVEYOR = str(Path(sys.executable).parent / "conveyor")


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    """Run `conveyor forge ARGS` as a separate process and capture its output."""
    return subprocess.run(
        [CONVEYOR, "forge", *args], capture_output=True, text=True, timeout=60, check=False
    )


def _invoke(*args: str) -> subprocess.CompletedProcess[str]:
    """Run `conveyor forge ARGS` inside this process (same commands, no interpreter start)."""
    result = CliRunner().invoke(app, list(args))
    return subprocess.CompletedProcess(args, result.exit_code, result.stdout, result.stderr)


def test_admin_commands_work_against_a_running_server(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """create-repo, add-user (token alone on stdout) and add-collaborator take effect live."""
    data = str(forge_server.data_dir)
    src = tmp_path / "src"
    src.mkdir()
    (src / "app.py").write_text("print('hi')\n")
    made = _invoke("create-repo", "--data", data, "cli-owner/cli-repo", "--from", str(src))
    assert made.returncode == 0, made.stderr
    added = _run("add-user", "--data", data, "cli-person")
    assert added.returncode == 0, added.stderr
    assert re.fullmatch(r"ghp_[A-Za-z0-9_-]+\n", added.stdout)
    token = added.stdout.strip()
    joined = _invoke("add-collaborator", "--data", data, "cli-owner/cli-repo", "cli-person")
    assert joined.returncode == 0, joined.stderr
    headers = {"Authorization": f"token {token}"}
    with http.client(base_url=forge_server.url, headers=headers) as client:
        assert client.get("/user").json()["login"] == "cli-person"
        permission = client.get("/repos/cli-owner/cli-repo/collaborators/cli-person/permission")
        assert permission.json()["permission"] == "write"


def test_add_app_prints_ids_and_a_key_path(forge_server: ForgeServer, tmp_path: Path) -> None:
    """add-app prints the app id, the installation id and a private key file that exists."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "README").write_text("x\n")
    forge_server.create_repo("app-owner/app-repo", src)
    made = _invoke(
        "add-app",
        "--data",
        str(forge_server.data_dir),
        "cli-app",
        "--install",
        "app-owner/app-repo",
    )
    assert made.returncode == 0, made.stderr
    fields = dict(line.split(" ", 1) for line in made.stdout.splitlines())
    assert int(fields["app_id"]) > 0
    assert int(fields["installation_id"]) > 0
    key_path = Path(fields["private_key_path"])
    assert key_path.is_absolute()
    assert key_path.read_text().startswith("-----BEGIN RSA PRIVATE KEY")


def test_mistakes_exit_1_with_a_message_naming_them(tmp_path: Path) -> None:
    """An unknown repository and a bad login each give exit 1 and a one-line error."""
    data = str(tmp_path / "forge")
    missing = _invoke("add-collaborator", "--data", data, "no/such", "someone")
    assert missing.returncode == 1
    assert "'no/such' does not exist" in missing.stderr
    bad = _invoke("add-user", "--data", data, "not a login")
    assert bad.returncode == 1
    assert "not a login" in bad.stderr
    assert bad.stdout == ""


def test_serve_prints_its_url_and_answers_there(tmp_path: Path) -> None:
    """`serve --port 0` prints the URL of a free port, where the API and page answer."""
    server = subprocess.Popen(
        [CONVEYOR, "forge", "serve", "--data", str(tmp_path / "forge"), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        url = server.stdout.readline().strip()
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+", url), url
        with http.client(base_url=url, timeout=30) as client:
            assert client.get("/_conveyor/stats").json()["requests"] == 0
            assert "Conveyor forge" in client.get("/").text
    finally:
        server.terminate()
        server.wait(timeout=30)
