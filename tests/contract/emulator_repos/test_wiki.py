"""The embedded forge's wikis: made with a first page on `master`, or later, over the API too."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from conveyor.emulator.app.server import ForgeServer
from conveyor.emulator.model.admin import AdminError
from conveyor.emulator.repos.create import create_repo
from conveyor.emulator.repos.wiki import create_wiki
from conveyor.forge.github import token_forge
from conveyor.git import Repo, read_blob
from conveyor.testing import http

pytestmark = pytest.mark.contract
GIT = ["git", "-c", "user.name=p", "-c", "user.email=p@p", "-c", "core.hooksPath=/dev/null"]


def _folder(path: Path, files: dict[str, str]) -> Path:
    path.mkdir(parents=True)
    for name, text in files.items():
        (path / name).write_text(text)
    return path


def test_a_new_wiki_has_its_first_page_on_master_and_takes_pushed_branches(
    tmp_path: Path,
) -> None:
    """As on GitHub: `Home.md` on `master`; a clone of the wiki URL can push another branch."""
    src = _folder(tmp_path / "code", {"README.md": "# tool\n"})
    created = create_repo(tmp_path / "data", "ann/tool", src, wiki=True)
    assert created.wiki_clone_url is not None
    assert created.wiki_clone_url.endswith("/ann/tool.wiki.git")
    wiki = Repo(Path(created.wiki_clone_url.removeprefix("file://")))
    assert read_blob(wiki, "refs/heads/master", "Home.md").decode().startswith("Welcome")
    clone = tmp_path / "clone"
    subprocess.run([*GIT, "clone", "-q", created.wiki_clone_url, str(clone)], check=True)
    (clone / "Stock.md").write_text("Levels.\n")
    subprocess.run([*GIT, "add", "-A"], cwd=clone, check=True)
    subprocess.run([*GIT, "commit", "-qm", "Stock"], cwd=clone, check=True)
    subprocess.run([*GIT, "push", "-q", "origin", "HEAD:agent/issue-3"], cwd=clone, check=True)
    assert read_blob(wiki, "refs/heads/agent/issue-3", "Stock.md") == b"Levels.\n"


def test_a_repository_gains_its_wiki_later_from_a_folder_and_the_api_says_so(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """`has_wiki` turns true with the wiki's first pages; a second wiki is refused."""
    slug = "acme/late-wiki"
    forge_server.create_repo(slug, _folder(tmp_path / "code", {"README.md": "# x\n"}))
    forge = token_forge(slug, forge_server.add_user("late-reader"), base_url=forge_server.url)
    assert not forge.repo_info().has_wiki
    pages = _folder(tmp_path / "pages", {"Home.md": "[[Guide]]\n", "Guide.md": "How.\n"})
    url = forge_server.create_wiki(slug, pages)
    info = token_forge(slug, forge_server.add_user("late-reader2"), base_url=forge_server.url)
    assert info.repo_info().has_wiki
    assert info.repo_info().wiki_clone_url == url
    wiki = Repo(Path(url.removeprefix("file://")))
    assert read_blob(wiki, "refs/heads/master", "Guide.md") == b"How.\n"
    with pytest.raises(AdminError, match="already has a wiki"):
        create_wiki(forge_server.data_dir, slug, store=None)


def test_the_admin_endpoint_makes_a_wiki_and_names_a_missing_repository(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """`POST /_conveyor/repos/OWNER/NAME/wiki` answers 201 with the URL, 422 when unknown."""
    slug = "acme/api-wiki"
    forge_server.create_repo(slug, _folder(tmp_path / "code", {"README.md": "# x\n"}))
    with http.client(base_url=forge_server.url, timeout=30) as client:
        made = client.post(f"/_conveyor/repos/{slug}/wiki", json={})
        missing = client.post("/_conveyor/repos/acme/nowhere/wiki", json={})
    assert made.status_code == 201
    assert made.json()["wiki_clone_url"].endswith("/acme/api-wiki.wiki.git")
    assert missing.status_code == 422
    assert "does not exist" in missing.json()["message"]
