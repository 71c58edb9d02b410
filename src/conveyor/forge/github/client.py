"""`GitHubForge`: the `Forge` protocol over githubkit, for GitHub or any compatible base URL."""

from __future__ import annotations

import functools
import importlib
import ssl
from typing import Any

import httpx
from githubkit import AppAuthStrategy, GitHub, TokenAuthStrategy
from githubkit.cache import MemCacheStrategy

from conveyor.forge.github.base import AppIdentity, SharedTransport
from conveyor.forge.github.checks import CheckOps
from conveyor.forge.github.comments import CommentOps
from conveyor.forge.github.edits import EditOps
from conveyor.forge.github.issues import IssueOps
from conveyor.forge.github.pr_reads import PrReadOps
from conveyor.forge.github.pr_texts import PrTextOps
from conveyor.forge.github.pulls import PullOps
from conveyor.forge.github.repo import RepoOps
from conveyor.forge.github.reviews import ReviewOps
from conveyor.forge.github.thread import ThreadOps
from conveyor.forge.protocol import Forge
from conveyor.forge.retry import RetryPolicy

GITHUB_API = "https://api.github.com"
USER_AGENT = "conveyor-forge-client"


class GitHubForge(
    ThreadOps,
    EditOps,
    IssueOps,
    CommentOps,
    PullOps,
    PrTextOps,
    ReviewOps,
    PrReadOps,
    RepoOps,
    CheckOps,
):
    """One repository on GitHub (or the embedded forge), as one account.

    Implements `conveyor.forge.protocol.Forge`. Build it with `token_forge`
    or `app_forge`; close it with `close()` (or use it as a context manager).
    """

    def __enter__(self) -> GitHubForge:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _kit(
    auth: str | AppAuthStrategy | Any,
    base_url: str,
    transport: SharedTransport,
    timeout: float,
    *,
    own_transport: bool,
) -> GitHub[Any]:
    return GitHub(
        auth,
        base_url=base_url.rstrip("/") + "/",
        user_agent=USER_AGENT,
        timeout=timeout,
        transport=transport,
        # An explicit transport (tests, the validation hook) is the only route;
        # our own pool still honours HTTP(S)_PROXY from the environment.
        trust_env=own_transport,
        # We send ETags ourselves; hishel's cache would turn 304s into 200s.
        http_cache=False,
        # Our RetryPolicy replaces githubkit's (which sleeps with time.sleep).
        auto_retry=False,
        # One cache per client: installation tokens must not leak across forges.
        cache_strategy=MemCacheStrategy(),
    )


@functools.cache
def tls_context() -> ssl.SSLContext:
    """httpx's default verifying TLS context, built once per process.

    Building one loads the whole CA bundle (tens of milliseconds of CPU); every client
    used to build its own, which was a tenth of the CPU of a job that makes a few.
    """
    return httpx.create_ssl_context()


# What githubkit loads only on first use: the REST groups our operations call, and the models
# their methods import inside (request bodies, error bodies, list items). Loaded once by
# `load_kit_models` in a process that forks jobs, so no job builds them again (~25 ms each).
KIT_REST_GROUPS = ("apps", "issues", "pulls", "repos", "users")
KIT_MODELS = (
    "BasicError",
    "ValidationError",
    "EventsGetResponse503",
    "PullRequestSimple",
    "PullRequestMergeResult",
    "ReposOwnerRepoIssuesPostBody",
    "ReposOwnerRepoIssuesCommentsCommentIdPatchBody",
    "ReposOwnerRepoIssuesIssueNumberCommentsPostBody",
    "ReposOwnerRepoIssuesIssueNumberLabelsPostBodyOneof0",
    "ReposOwnerRepoIssuesIssueNumberLabelsPostBodyOneof2Items",
    "ReposOwnerRepoLabelsPostBody",
    "ReposOwnerRepoPullsPostBody",
    "ReposOwnerRepoPullsPullNumberPatchBody",
    "ReposOwnerRepoPullsPullNumberMergePutBody",
    "ReposOwnerRepoPullsPullNumberMergePutResponse405",
    "ReposOwnerRepoPullsPullNumberMergePutResponse409",
)


def load_kit_models() -> None:
    """Load githubkit's lazily loaded REST groups and models that the client uses."""
    kit: GitHub[Any] = GitHub("unused")  # sends nothing: reading `rest.X` loads its module
    for group in KIT_REST_GROUPS:
        getattr(kit.rest, group)
    models = importlib.import_module("githubkit_schemas.latest.models")
    for name in KIT_MODELS:
        getattr(models, name)


def _shared(transport: httpx.BaseTransport | None) -> SharedTransport:
    if transport is None:
        transport = httpx.HTTPTransport(verify=tls_context())
    return SharedTransport(transport)


def token_forge(
    repo: str,
    token: str,
    *,
    base_url: str = GITHUB_API,
    transport: httpx.BaseTransport | None = None,
    retry: RetryPolicy | None = None,
    timeout: float = 30.0,
) -> GitHubForge:
    """A client for `repo` acting as the owner of a personal access token."""
    if not token:
        msg = "token_forge: the token is empty"
        raise ValueError(msg)
    shared = _shared(transport)
    kit = _kit(TokenAuthStrategy(token), base_url, shared, timeout, own_transport=transport is None)
    return GitHubForge(kit, repo, retry=retry or RetryPolicy(), transport=shared)


def app_forge(
    repo: str,
    app: AppIdentity,
    private_key: str,
    *,
    base_url: str = GITHUB_API,
    transport: httpx.BaseTransport | None = None,
    retry: RetryPolicy | None = None,
    timeout: float = 30.0,
) -> GitHubForge:
    """A client for `repo` acting as a GitHub App's installation (`SLUG[bot]`)."""
    shared = _shared(transport)
    auth = AppAuthStrategy(app.app_id, private_key).as_installation(app.installation_id)
    kit = _kit(auth, base_url, shared, timeout, own_transport=transport is None)
    return GitHubForge(kit, repo, retry=retry or RetryPolicy(), transport=shared, app=app)


def _is_a_forge(forge: GitHubForge) -> Forge:
    """Never called: mypy checks here that `GitHubForge` implements the protocol in full."""
    return forge
