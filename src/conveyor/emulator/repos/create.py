"""Creating repositories: import a folder or a git history into a bare repository.

`create_repo` works whether or not the server runs (it opens the store itself);
`POST /_conveyor/repos` does the same for tests over HTTP.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from conveyor.emulator.model.admin import AdminError, store_for
from conveyor.emulator.model.check_rows import queue_ci_run
from conveyor.emulator.model.ci_network import parse_ci_network, save_ci_network
from conveyor.emulator.model.http import ApiError, emulator, json_response, read_object
from conveyor.emulator.model.records import (
    bare_repo_path,
    clone_url,
    ensure_user,
    repo_row,
    split_slug,
)
from conveyor.emulator.model.shapes import now_iso
from conveyor.emulator.model.store import Store, make_node_id
from conveyor.emulator.repos.pushes import FORGE_GIT_ENV, hook_script
from conveyor.emulator.repos.wiki import init_wiki
from conveyor.git import (
    ZERO_SHA,
    GitError,
    Identity,
    Repo,
    commit_tree,
    fetch,
    head_branch,
    init_bare,
    install_hook,
    rev_parse,
    update_ref,
    write_tree_from_dir,
)
from conveyor.git.runner import git_text


@dataclass(frozen=True)
class RepoCreated:
    """A new repository: its id, clone URLs, default branch and the SHA that branch holds."""

    repo_id: int
    full_name: str
    clone_url: str
    default_branch: str
    head_sha: str
    wiki_clone_url: str | None


def _check_name(part: str, what: str) -> None:
    if not part or len(part) > 100 or not all(c.isalnum() or c in "-_." for c in part):
        msg = f"{what} {part!r} must be letters, digits, '-', '_' or '.'"
        raise AdminError(msg)


def _is_git(src: Path) -> bool:
    """Whether `src` is a git work tree or a bare repository (rather than a plain folder)."""
    return (src / ".git").exists() or ((src / "objects").is_dir() and (src / "HEAD").is_file())


def _import_git(
    bare: Path, src: Path, owner: str, at: str | None, branch: str | None, *, one_commit: bool
) -> tuple[str, str]:
    """Import a git repository: its history up to `at` with the tags in it, or one commit.

    Tracked files are kept whatever the source's `.gitignore` says.
    """
    source = Repo(src, FORGE_GIT_ENV)
    sha = rev_parse(source, f"{at or 'HEAD'}^{{commit}}")
    branch = branch or head_branch(source) or "main"
    repo = init_bare(bare, FORGE_GIT_ENV, branch)
    if one_commit:
        fetch(repo, str(src), [sha], prune=False)
        author = repo.with_identity(Identity(owner, f"{owner}@users.noreply.localhost"))
        message = git_text(source, "log", "-1", "--format=%B", sha)
        tree = git_text(repo, "rev-parse", f"{sha}^{{tree}}").strip()
        sha = commit_tree(author, tree, [], message)
        update_ref(repo, f"refs/heads/{branch}", sha, ZERO_SHA)
        return branch, sha
    tags = git_text(source, "tag", "--merged", sha).split()
    refspecs = [f"{sha}:refs/heads/{branch}", *(f"refs/tags/{t}:refs/tags/{t}" for t in tags)]
    fetch(repo, str(src), refspecs, prune=False)
    return branch, sha


def _import(
    bare: Path, src: Path, owner: str, at: str | None, branch: str | None, *, one_commit: bool
) -> tuple[str, str]:
    """Fill a new bare repository at `bare` from `src`; (default branch, its SHA)."""
    if _is_git(src):
        return _import_git(bare, src, owner, at, branch, one_commit=one_commit)
    if one_commit:
        msg = f"--one-commit needs a git repository, but {src} is a plain folder"
        raise AdminError(msg)
    if at is not None:
        msg = f"--at {at!r} needs a git repository, but {src} is a plain folder"
        raise AdminError(msg)
    branch = branch or "main"
    repo = init_bare(bare, FORGE_GIT_ENV, branch)
    author = repo.with_identity(Identity(owner, f"{owner}@users.noreply.localhost"))
    with tempfile.TemporaryDirectory(prefix="conveyor-import-") as tmp:
        tree = write_tree_from_dir(repo, src, Path(tmp) / "index")
    sha = commit_tree(author, tree, [], "Initial commit\n")
    update_ref(repo, f"refs/heads/{branch}", sha, ZERO_SHA)
    return branch, sha


def create_repo(
    data_dir: Path,
    slug: str,
    src: Path,
    *,
    at: str | None = None,
    default_branch: str | None = None,
    ci: str | None = None,
    wiki: bool = False,
    wiki_src: Path | None = None,
    store: Store | None = None,
    one_commit: bool = False,
    ci_base: bool = False,
    ci_network: str | None = None,
) -> RepoCreated:
    """Create OWNER/NAME from folder or git repository `src` (its history up to `at`).

    `one_commit` imports only the commit `at` (or HEAD) of a git repository, as a
    single commit with its files and message.

    The owner becomes a user (when new) and an admin collaborator; the bare
    repository gets the `post-receive` hook that reports pushes to the server.
    `wiki` also makes the wiki with its first page (`Home.md`, or the files of folder
    `wiki_src`), as GitHub does when someone creates the first page in the browser.
    `store`: a running in-process server's (see `admin.store_for`). `ci_base` also
    queues a CI run on the imported branch's head, as the push of it would on GitHub.
    `ci_network` is the network its CI command gets (`hooks/ci_network.py`; None: the
    server's).
    """
    try:
        owner, name = split_slug(slug)
    except ValueError as exc:
        raise AdminError(str(exc)) from exc
    _check_name(owner, "owner")
    _check_name(name, "repository name")
    try:
        network = None if ci_network is None else parse_ci_network(ci_network)
    except ValueError as exc:
        raise AdminError(str(exc)) from exc
    src = src.expanduser().resolve()
    data_dir = data_dir.resolve()
    if not src.is_dir():
        msg = f"source {src} is not a folder"
        raise AdminError(msg)
    if wiki_src is not None and not wiki_src.is_dir():
        msg = f"wiki source {wiki_src} is not a folder"
        raise AdminError(msg)
    bare = bare_repo_path(data_dir, owner, name)
    with store_for(data_dir, store) as opened:
        if repo_row(opened, owner, name) is not None or bare.exists():
            msg = f"repository {slug!r} already exists"
            raise AdminError(msg)
        try:
            branch, sha = _import(bare, src, owner, at, default_branch, one_commit=one_commit)
            if wiki:
                init_wiki(bare_repo_path(data_dir, owner, name, wiki=True), owner, name, wiki_src)
        except GitError as exc:
            shutil.rmtree(bare, ignore_errors=True)
            shutil.rmtree(bare_repo_path(data_dir, owner, name, wiki=True), ignore_errors=True)
            msg = f"cannot import {src}: {exc}"
            raise AdminError(msg) from exc
        now = now_iso()
        with opened.tx() as conn:
            owner_id = ensure_user(opened, conn, owner)
            repo_id = opened.next_id(conn)
            conn.execute(
                "INSERT INTO repos (id, owner_id, name, node_id, default_branch, has_wiki, "
                "ci_command, created_at, pushed_at, updated_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    *(repo_id, owner_id, name, make_node_id("R", repo_id), branch, int(wiki), ci),
                    *(now, now, now),
                ),
            )
            conn.execute(
                "INSERT OR REPLACE INTO collaborators (repo_id, user_id, permission) "
                "VALUES (?, ?, 'admin')",
                (repo_id, owner_id),
            )
            if network is not None:
                save_ci_network(conn, repo_id, network)
            if ci_base and ci:
                queue_ci_run(opened, conn, repo_id, sha)
        install_hook(Repo(bare, FORGE_GIT_ENV), "post-receive", hook_script(data_dir, repo_id))
        wiki_url = clone_url(data_dir, owner, name, wiki=True) if wiki else None
        return RepoCreated(
            repo_id, f"{owner}/{name}", clone_url(data_dir, owner, name), branch, sha, wiki_url
        )


async def post_repo(request: Request) -> Response:
    """`POST /_conveyor/repos`: create a repository (slug, src, at, default_branch, ci, ci_base,
    wiki, wiki_src)."""
    body = await read_object(request)
    slug, src = body.get("slug"), body.get("src")
    if not isinstance(slug, str) or not isinstance(src, str):
        raise ApiError(422, "slug and src are required strings")
    options = {key: body.get(key) for key in ("at", "default_branch", "ci", "wiki_src")}
    if any(v is not None and not isinstance(v, str) for v in options.values()):
        raise ApiError(422, "at, default_branch, ci and wiki_src must be strings")
    data_dir = emulator(request).data_dir
    try:
        created = await run_in_threadpool(
            create_repo,
            data_dir,
            slug,
            Path(src),
            at=options["at"],
            default_branch=options["default_branch"],
            ci=options["ci"],
            wiki=bool(body.get("wiki", False)) or options["wiki_src"] is not None,
            wiki_src=Path(options["wiki_src"]) if options["wiki_src"] else None,
            ci_base=bool(body.get("ci_base", False)),
        )
    except AdminError as exc:
        raise ApiError(422, str(exc)) from exc
    return json_response(
        {
            "id": created.repo_id,
            "full_name": created.full_name,
            "clone_url": created.clone_url,
            "default_branch": created.default_branch,
            "head_sha": created.head_sha,
            "wiki_clone_url": created.wiki_clone_url,
        },
        status=201,
    )


ROUTES = [Route("/_conveyor/repos", post_repo, methods=["POST"])]
