"""A repository's wiki: the bare `NAME.wiki.git` beside `NAME.git`, made with its first page.

GitHub turns a repository's wiki on with `has_wiki`, but the wiki's git repository
exists only once someone makes its first page in the browser; that page lands on the
wiki's `master` branch. `create_wiki` is that first page (a `Home.md`, or every file of
a folder), so a repository can have its wiki from the start or gain it later.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from conveyor.emulator.model.admin import AdminError, store_for
from conveyor.emulator.model.http import ApiError, emulator, json_response, read_object
from conveyor.emulator.model.records import bare_repo_path, clone_url, repo_row, split_slug
from conveyor.emulator.model.store import Store
from conveyor.emulator.repos.pushes import FORGE_GIT_ENV
from conveyor.git import (
    ZERO_SHA,
    GitError,
    Identity,
    commit_tree,
    init_bare,
    update_ref,
    write_tree_from_dir,
)

WIKI_BRANCH = "master"


def first_page(name: str) -> str:
    """The text GitHub's first wiki page starts from."""
    return f"Welcome to the {name} wiki!\n"


def init_wiki(bare: Path, owner: str, name: str, src: Path | None) -> str:
    """Create the wiki's bare repository at `bare` with one commit on `master`; its SHA."""
    repo = init_bare(bare, FORGE_GIT_ENV, WIKI_BRANCH)
    author = repo.with_identity(Identity(owner, f"{owner}@users.noreply.localhost"))
    with tempfile.TemporaryDirectory(prefix="conveyor-wiki-") as tmp:
        pages = src
        if pages is None:
            pages = Path(tmp) / "pages"
            pages.mkdir()
            (pages / "Home.md").write_text(first_page(name), encoding="utf-8")
        tree = write_tree_from_dir(repo, pages, Path(tmp) / "index")
    sha = commit_tree(author, tree, [], "Initial Home page\n" if src is None else "Add pages\n")
    update_ref(repo, f"refs/heads/{WIKI_BRANCH}", sha, ZERO_SHA)
    return sha


def create_wiki(
    data_dir: Path, slug: str, src: Path | None = None, *, store: Store | None = None
) -> str:
    """Give OWNER/NAME its wiki (its first pages: `Home.md`, or the files of folder `src`).

    Returns the wiki's clone URL. The repository's `has_wiki` becomes true.
    """
    try:
        owner, name = split_slug(slug)
    except ValueError as exc:
        raise AdminError(str(exc)) from exc
    data_dir = data_dir.resolve()
    if src is not None and not src.is_dir():
        msg = f"wiki source {src} is not a folder"
        raise AdminError(msg)
    bare = bare_repo_path(data_dir, owner, name, wiki=True)
    with store_for(data_dir, store) as opened:
        row = repo_row(opened, owner, name)
        if row is None:
            msg = f"repository {slug!r} does not exist"
            raise AdminError(msg)
        if bare.exists():
            msg = f"repository {slug!r} already has a wiki"
            raise AdminError(msg)
        try:
            init_wiki(bare, owner, name, src)
        except GitError as exc:
            msg = f"cannot create the wiki of {slug}: {exc}"
            raise AdminError(msg) from exc
        with opened.tx() as conn:
            conn.execute("UPDATE repos SET has_wiki = 1 WHERE id = ?", (row["id"],))
    return clone_url(data_dir, owner, name, wiki=True)


async def post_wiki(request: Request) -> Response:
    """`POST /_conveyor/repos/{owner}/{repo}/wiki`: make the wiki's first pages (`src`)."""
    body = await read_object(request)
    src = body.get("src")
    if src is not None and not isinstance(src, str):
        raise ApiError(422, "src must be a string")
    slug = f"{request.path_params['owner']}/{request.path_params['repo']}"
    try:
        url = await run_in_threadpool(
            create_wiki, emulator(request).data_dir, slug, Path(src) if src else None
        )
    except AdminError as exc:
        raise ApiError(422, str(exc)) from exc
    return json_response({"wiki_clone_url": url, "branch": WIKI_BRANCH}, status=201)


ROUTES = [Route("/_conveyor/repos/{owner}/{repo}/wiki", post_wiki, methods=["POST"])]
