"""Creating repositories: from a folder or a git history, by function or admin endpoint."""

from __future__ import annotations

import shutil
from pathlib import Path

import httpx
import pytest

from conveyor.emulator.app.server import ForgeServer
from conveyor.emulator.model.admin import AdminError
from conveyor.emulator.repos.create import create_repo
from conveyor.git import Repo, log_commits, read_tree
from conveyor.testing import http
from tests.contract.emulator_repos.conftest import make_git_world, open_pr
from tests.contract.git.workrepo import WorkRepo

pytestmark = pytest.mark.contract


def test_import_from_a_git_repo_at_a_commit_keeps_its_history_up_to_it(tmp_path: Path) -> None:
    """`at` picks the commit: its history is kept, later commits are not imported."""
    src = WorkRepo.init(tmp_path / "src", branch="trunk")
    src.commit({"a.txt": "1\n"}, "one")
    second = src.commit({"b.txt": "2\n"}, "two")
    src.commit({"c.txt": "3\n"}, "three")
    created = create_repo(tmp_path / "data", "ann/lib", src.path, at=second)
    assert (created.head_sha, created.default_branch) == (second, "trunk")
    bare = Repo(tmp_path / "data" / "git" / "ann" / "lib.git")
    assert [c.subject for c in log_commits(bare, None, "trunk")] == ["one", "two"]
    assert created.clone_url.startswith("file://")


def test_import_of_a_plain_folder_is_one_commit_on_the_chosen_branch(tmp_path: Path) -> None:
    """Every file of the folder lands in a single first commit; a wiki repo is made on request."""
    src = tmp_path / "plain"
    (src / "pkg").mkdir(parents=True)
    (src / "pkg" / "mod.py").write_text("VALUE = 1\n")
    (src / "README.md").write_text("# hi\n")
    created = create_repo(
        tmp_path / "data", "bob/tool", src, default_branch="develop", ci="true", wiki=True
    )
    bare = Repo(tmp_path / "data" / "git" / "bob" / "tool.git")
    assert [c.subject for c in log_commits(bare, None, "develop")] == ["Initial commit"]
    assert [e.path for e in read_tree(bare, "develop")] == ["README.md", "pkg/mod.py"]
    assert created.wiki_clone_url is not None
    assert Path(created.wiki_clone_url.removeprefix("file://")).is_dir()


def test_bad_imports_name_what_is_wrong(tmp_path: Path) -> None:
    """A taken name, a missing folder, `at` on a plain folder and a bad slug are refused."""
    src = tmp_path / "plain"
    src.mkdir()
    (src / "f.txt").write_text("f\n")
    data = tmp_path / "data"
    create_repo(data, "cat/one", src)
    with pytest.raises(AdminError, match="already exists"):
        create_repo(data, "cat/one", src)
    with pytest.raises(AdminError, match="not a folder"):
        create_repo(data, "cat/two", tmp_path / "missing")
    with pytest.raises(AdminError, match="needs a git repository"):
        create_repo(data, "cat/three", src, at="HEAD")
    with pytest.raises(AdminError, match="OWNER/NAME"):
        create_repo(data, "no-slash", src)


def test_the_admin_endpoint_creates_a_repository_the_api_serves(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """`POST /_conveyor/repos` imports; the owner is an admin collaborator; errors are 422."""
    src = WorkRepo.init(tmp_path / "src")
    sha = src.commit({"x.txt": "x\n"}, "x")
    made = http.post(
        f"{forge_server.url}/_conveyor/repos",
        json={"slug": "dana/thing", "src": str(src.path), "ci": "true"},
    )
    assert made.status_code == 201, made.text
    assert made.json()["head_sha"] == sha
    branch = http.get(f"{forge_server.url}/repos/dana/thing/branches/main").json()
    assert branch["commit"]["sha"] == sha
    again = http.post(
        f"{forge_server.url}/_conveyor/repos", json={"slug": "dana/thing", "src": str(src.path)}
    )
    assert again.status_code == 422
    assert "already exists" in again.json()["message"]


def test_pushes_made_while_the_server_was_down_are_picked_up_at_start(tmp_path: Path) -> None:
    """A restarted server compares PR heads with their branches, even without the hook's log."""
    data = tmp_path / "forge"
    with ForgeServer(data) as server:
        gw = make_git_world(server, tmp_path)
        gw.push_branch("feature", {"n.txt": "n\n"}, "First")
        with gw.client(gw.writer_token) as client:
            number = open_pr(client, gw, "feature")["number"]
    gw.clone.commit({"n.txt": "nn\n"}, "Second")
    gw.clone.git("-c", "core.hooksPath=/dev/null", "push", "--quiet", "origin", "feature")
    moved = gw.clone.git("rev-parse", "HEAD")
    with ForgeServer(data) as server, gw.client(gw.writer_token) as client:
        client.base_url = httpx.URL(server.url)
        assert client.get(f"{gw.repo_path}/pulls/{number}").json()["head"]["sha"] == moved


def test_a_moved_data_folder_still_hears_pushes(tmp_path: Path) -> None:
    """Start-up rewrites the hooks, so pushes into a moved data folder reach its server."""
    with ForgeServer(tmp_path / "before") as server:
        gw = make_git_world(server, tmp_path)
        gw.push_branch("feature", {"n.txt": "n\n"}, "First")
        with gw.client(gw.writer_token) as client:
            number = open_pr(client, gw, "feature")["number"]
    shutil.move(tmp_path / "before", tmp_path / "after")
    bare = tmp_path / "after" / "git" / gw.slug.split("/")[0] / f"{gw.slug.split('/')[1]}.git"
    gw.clone.git("remote", "set-url", "origin", bare.as_uri())
    with ForgeServer(tmp_path / "after") as server, gw.client(gw.writer_token) as client:
        client.base_url = httpx.URL(server.url)
        moved = gw.push_branch("feature", {"n.txt": "nn\n"}, "Second")
        assert client.get(f"{gw.repo_path}/pulls/{number}").json()["head"]["sha"] == moved
