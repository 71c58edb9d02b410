"""A job's wiki checkout: `<checkout>/<wiki dir>` on the wiki's `agent/issue-N` (WT-7..11, JB-11).

The wiki is cloned, not a submodule: the job keeps a bare cache of it beside the code's
(`wiki-cache.git`, fetched under its lock) and clones it into the code checkout's wiki
folder, which the code repository's `info/exclude` hides. It starts at the wiki's
`agent/issue-N` when that branch has commits of its own, else at the wiki's latest
version (WT-8). Both clones share one git setup: the identity, the askpass push op and
its pre-push hook, the commit-msg trailer (WT-10). Like the code's, the wiki checkout's
git works in a keep of its own beside the job's folder (`wiki.git`), and its `.git` is
the agent's. A repository whose wiki is off, or
whose wiki has no page yet (GitHub creates its git repository with the first page), gets
no wiki checkout (WT-11).

The spec writer writes the spec's Wiki updates there (SPEC-119); the fixer and the check
fixer may commit wiki pages too. The job pushes the wiki branch whenever it pushes code, and
at exit. Reviews of a wiki-only change read the wiki's diff section and are posted on the
issue (it has no open PR); its branch guard has no code head to compare. The embedded forge
serves `NAME.wiki.git` like every repository (a `file://` clone URL; GitHub's is
`https://github.com/OWNER/NAME.wiki.git`, derived from the clone URL when `has_wiki` is
true), made with its first page on `master` as GitHub does.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from conveyor.agents.hooks import commit_msg_hook
from conveyor.core.config import Config
from conveyor.forge.types import RepoInfo
from conveyor.git.agent_repo import harvest
from conveyor.git.checkout import (
    create_checkout,
    file_lock,
    install_checkout_hooks,
    lock_path,
    update_cache,
)
from conveyor.git.keep import make_agent_repo
from conveyor.git.refs import is_ancestor, try_rev_parse
from conveyor.git.runner import Boxer, GitEnv, GitError, Repo, git_text, run_git
from conveyor.git.token_push import PushAuth
from conveyor.ops.local.wiki_branch import WikiCheckout

WIKI_CACHE = "wiki-cache.git"
WIKI_KEEP = "wiki.git"  # the wiki checkout's keep, in the job's folder
# A killed job's unpushed wiki commits, kept in the wiki cache for the issue's next job.
LEFTOVER_PREFIX = "refs/conveyor/wiki-leftover/"


def remote_heads(url: str, env: GitEnv, cwd: Path) -> tuple[str | None, tuple[str, ...]]:
    """The wiki remote's HEAD branch and its branches; no branch at all when it has no page.

    A wiki repository that does not exist (GitHub answers "not found") reads the same
    as an empty one.
    """
    try:
        text = run_git(
            ["ls-remote", "--symref", url, "HEAD", "refs/heads/*"], cwd=cwd, env=env
        ).stdout.decode()
    except GitError:
        return None, ()
    head: str | None = None
    branches: list[str] = []
    for line in text.splitlines():
        if line.startswith("ref: ") and line.endswith("\tHEAD"):
            head = line.removeprefix("ref: ").split("\t")[0].removeprefix("refs/heads/")
        elif "\trefs/heads/" in line:
            branches.append(line.split("\trefs/heads/", 1)[1])
    return head, tuple(branches)


def wiki_url(config: Config, info: RepoInfo) -> str | None:
    """The wiki's clone URL: the config's, else the forge's when the repository has a wiki."""
    settings = config.wiki_settings
    if settings is None:
        return None
    return settings.url or info.wiki_clone_url


def prepare_wiki(
    config: Config,
    info: RepoInfo,
    *,
    code: Repo,
    home: Path,
    keep: Path,
    issue: int,
    auth: PushAuth,
    trailer_role: str,
) -> WikiCheckout | None:
    """Clone the wiki into the code checkout's wiki folder (its git in `keep`), or None when
    there is no wiki."""
    settings = config.wiki_settings
    url = wiki_url(config, info)
    if settings is None or url is None:
        return None
    auth = auth.for_urls(url)
    plain = replace(code.env, git_dir=None)
    fetch_env = replace(plain, extra=auth.fetch_variables())
    # Asked from the job's folder: in the checkout, git would read the config of the
    # repository it found there (the agent's), its `url.*.insteadOf` and `protocol.*` among it.
    head, branches = remote_heads(url, fetch_env, keep.parent)
    base = settings.branch or head
    if not branches or base is None or base not in branches:
        return None
    tracked = git_text(code, "ls-files", "--", f"{settings.dir}/").strip()
    if tracked:
        msg = (
            f"config wiki.dir: the repository already tracks files under {settings.dir}/; "
            "name another folder for the wiki checkout"
        )
        raise ValueError(msg)
    _exclude(code, settings.dir)
    cache_path = home / WIKI_CACHE
    cache = Repo(update_cache(cache_path, url, fetch_env).path, plain)
    branch = f"agent/issue-{issue}"
    dest = code.path / settings.dir
    made = create_checkout(cache, dest, url, keep=keep, branch=branch, base=base, env=plain)
    own = try_rev_parse(made, f"refs/remotes/origin/{branch}")
    base_sha = try_rev_parse(made, f"refs/remotes/origin/{base}")
    if own is not None and base_sha is not None and is_ancestor(made, own, base_sha):
        # The issue's wiki branch has nothing of its own: start at the wiki's latest (WT-8).
        run_git(
            ["checkout", "--quiet", "--no-track", "-B", branch, base_sha], cwd=dest, env=made.env
        )
    _take_leftover(cache, made, issue, own, base_sha)
    make_agent_repo(made, branch, url)
    repo = replace(made, box=code.box)
    install_checkout_hooks(repo, auth.nonce, commit_msg_hook(trailer_role))
    start = git_text(repo, "rev-parse", "HEAD").strip()
    lock = lock_path(cache_path)
    return WikiCheckout(repo, settings.dir, url, base, branch, start, auth, lock)


def keep_wiki_leftovers(
    home: Path,
    leftovers: list[Path],
    folder: str,
    issue: int,
    env: GitEnv,
    *,
    box: Boxer | None,
) -> int:
    """Keep the wiki commits of killed jobs' checkouts in the wiki cache (JB-12); how many.

    The leftover's wiki repository was the agent's: its HEAD comes into the bare cache as
    `harvest` takes it (an upload-pack in the box, every object checked); the next wiki
    checkout of the issue starts from it when the wiki's branch has not moved past it since.
    """
    cache = Repo(home / WIKI_CACHE, env, box)
    kept = 0
    if not (cache.path / "HEAD").is_file():
        return kept
    for leftover in leftovers:
        source = leftover / folder
        if not (source / ".git").exists():
            continue
        keep = leftover.with_name(WIKI_KEEP)
        shown = (keep,) if keep.is_dir() else ()
        try:
            with file_lock(lock_path(cache.path)):
                got = harvest(cache, source, into=f"{LEFTOVER_PREFIX}{issue}", readable=shown)
        except GitError:
            continue
        kept += got is not None
    return kept


def _take_leftover(
    cache: Repo, repo: Repo, issue: int, own: str | None, base_sha: str | None
) -> None:
    """Continue from a killed job's wiki commits: they have commits of their own and the
    wiki's branch of the issue has not moved past them since."""
    ref = f"{LEFTOVER_PREFIX}{issue}"
    sha = try_rev_parse(cache, ref)
    if sha is None:
        return
    fetched = f"+{ref}:{ref}"
    run_git(
        ["fetch", "--quiet", "--no-tags", str(cache.path), fetched], cwd=repo.path, env=repo.env
    )
    has_own = base_sha is None or not is_ancestor(repo, sha, base_sha)
    if has_own and (own is None or is_ancestor(repo, own, sha)):
        run_git(["reset", "--quiet", "--hard", sha], cwd=repo.path, env=repo.env)
    run_git(["update-ref", "-d", ref], cwd=repo.path, env=repo.env)
    with file_lock(lock_path(cache.path)):
        run_git(["update-ref", "-d", ref], cwd=cache.path, env=cache.env)


def _exclude(code: Repo, folder: str) -> None:
    """Hide the wiki folder from the code repository (its `info/exclude`)."""
    path = Path(
        git_text(code, "rev-parse", "--path-format=absolute", "--git-path", "info/exclude").strip()
    )
    line = f"/{folder}/"
    text = path.read_text(encoding="utf-8") if path.is_file() else ""
    if line not in text.splitlines():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text + ("" if not text or text.endswith("\n") else "\n") + line + "\n")
