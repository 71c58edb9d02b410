"""The emulator's Starlette app: routes from `ROUTE_MODULES`, error handlers, lifecycle, serving.

How a module plugs in: import it here and add it to `ROUTE_MODULES`. It must expose
`ROUTES: list[Route]`; it may expose `on_startup(state: EmulatorState) -> None`
(run when the server starts, e.g. to reconcile pushed refs or start a worker) and
`on_shutdown(state: EmulatorState) -> None` (run when it stops); callables appended to
`state.on_shutdown` also run at stop. The page at `/` calls a module's
`page_section(state, base, repo_row) -> str` (already-escaped HTML) when it has one.
"""

from __future__ import annotations

import random
import socket
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from types import ModuleType

import uvicorn
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute

from conveyor.core.pipeline_view import PipelineReader
from conveyor.emulator.app import control as app_control
from conveyor.emulator.app.middleware import ForgeMiddleware
from conveyor.emulator.graphql import endpoint as graphql_endpoint
from conveyor.emulator.hooks import ci as hooks_ci
from conveyor.emulator.hooks import webhooks as hooks_webhooks
from conveyor.emulator.model.http import ApiError, error
from conveyor.emulator.model.state import EmulatorState, Knobs, TranscriptReader
from conveyor.emulator.model.store import Store
from conveyor.emulator.repos import create as repos_create
from conveyor.emulator.repos import forks as repos_forks
from conveyor.emulator.repos import repo_plan as repos_repo_plan
from conveyor.emulator.repos import wiki as repos_wiki
from conveyor.emulator.rest import apps as rest_apps
from conveyor.emulator.rest import assignees as rest_assignees
from conveyor.emulator.rest import branches as rest_branches
from conveyor.emulator.rest import checks as rest_checks
from conveyor.emulator.rest import comments as rest_comments
from conveyor.emulator.rest import issues as rest_issues
from conveyor.emulator.rest import labels as rest_labels
from conveyor.emulator.rest import merge as rest_merge
from conveyor.emulator.rest import protection as rest_protection
from conveyor.emulator.rest import pull_files as rest_pull_files
from conveyor.emulator.rest import pulls as rest_pulls
from conveyor.emulator.rest import review_edits as rest_review_edits
from conveyor.emulator.rest import reviews as rest_reviews
from conveyor.emulator.rest import rulesets as rest_rulesets
from conveyor.emulator.rest import statuses as rest_statuses
from conveyor.emulator.rest import sub_issues as rest_sub_issues
from conveyor.emulator.rest import users as rest_users
from conveyor.emulator.web import index as web_index
from conveyor.emulator.web import issue as web_issue
from conveyor.emulator.web import pipeline as web_pipeline
from conveyor.emulator.web import pull as web_pull
from conveyor.emulator.web import pull_table as web_pull_table
from conveyor.emulator.web import transcript as web_transcript

# The route modules, in the order their routes are tried.
ROUTE_MODULES: tuple[ModuleType, ...] = (
    app_control,
    rest_users,
    rest_apps,
    rest_issues,
    rest_comments,
    rest_labels,
    rest_sub_issues,
    rest_assignees,
    hooks_webhooks,
    # The git half (A2): protection before branches, whose `{branch:path}` would swallow it.
    repos_create,
    repos_wiki,
    repos_repo_plan,
    repos_forks,
    rest_pulls,
    rest_reviews,
    rest_review_edits,
    rest_pull_files,
    rest_merge,
    rest_protection,
    rest_rulesets,
    rest_branches,
    rest_checks,
    rest_statuses,
    graphql_endpoint,
    hooks_ci,
    web_pull_table,
    web_index,
    web_issue,
    web_pull,
    web_pipeline,
    web_transcript,
)


def route_modules() -> list[ModuleType]:
    """The route modules, in `ROUTE_MODULES` order."""
    return list(ROUTE_MODULES)


async def _api_error(_request: Request, exc: Exception) -> Response:
    """Render a route's `ApiError`."""
    assert isinstance(exc, ApiError)
    return exc.response()


async def _http_error(_request: Request, exc: Exception) -> Response:
    """Starlette's own 404/405 answers, in GitHub's shape."""
    assert isinstance(exc, HTTPException)
    message = "Not Found" if exc.status_code == 404 else str(exc.detail)
    return error(exc.status_code, message, headers=dict(exc.headers or {}))


async def _too_big(_request: Request, _exc: Exception) -> Response:
    """A number in the path beyond SQLite's 64-bit integers names nothing: 404."""
    return error(404, "Not Found")


async def _crash(_request: Request, _exc: Exception) -> Response:
    """A bug in a route: GitHub's 500 shape (tests treat any 500 as a failure)."""
    return error(500, "Server Error")


def build_app(
    data_dir: Path,
    *,
    fail_rate: float = 0.0,
    list_lag_ms: int = 0,
    seed: int | None = None,
    pipeline: PipelineReader | None = None,
    transcripts: TranscriptReader | None = None,
    ci_network: str = "none",
) -> Starlette:
    """The emulator's ASGI app over the store in `data_dir` (created when missing).

    `pipeline` reads a `$CONVEYOR_HOME`'s status, spending and timelines for `/pipeline` and
    the issue pages (`conveyor.orchestrator.shell.pipeline_files.PipelineFiles`);
    `transcripts` reads an issue's agent sessions for its page and transcript pages
    (`conveyor.job.transcripts.home_transcripts`); `ci_network` is the CI's network for
    repositories that name none (`emulator/hooks/ci_network.py`).
    """
    modules = route_modules()  # imported above: that registered their tables
    store = Store.open(data_dir)
    state = EmulatorState(
        store=store,
        data_dir=data_dir,
        knobs=Knobs(fail_rate=fail_rate, list_lag_ms=list_lag_ms),
        rng=random.Random(seed),
        pipeline=pipeline,
        transcripts=transcripts,
        ci_network=ci_network,
    )
    routes: list[BaseRoute] = [route for module in modules for route in module.ROUTES]

    @asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        for module in modules:
            hook = getattr(module, "on_startup", None)
            if hook is not None:
                hook(state)
        try:
            yield
        finally:
            for module in modules:
                hook = getattr(module, "on_shutdown", None)
                if hook is not None:
                    hook(state)
            for callback in state.on_shutdown:
                callback()

    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        exception_handlers={
            ApiError: _api_error,
            HTTPException: _http_error,
            OverflowError: _too_big,
            Exception: _crash,
        },
    )
    app.state.emulator = state
    app.state.modules = modules
    app.add_middleware(ForgeMiddleware, state=state)
    return app


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket (port 0 picks a free one)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP explicitly: asyncio sets TCP_NODELAY on accepted sockets only when the
    # protocol says TCP, and without it keep-alive answers stall 40 ms on delayed ACKs.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def server_for(app: Starlette) -> uvicorn.Server:
    """A quiet uvicorn server for the app, on httptools (C) rather than h11 (pure Python)."""
    config = uvicorn.Config(
        app, http="httptools", log_level="warning", access_log=False, lifespan="on"
    )
    return uvicorn.Server(config)


def url_of(sock: socket.socket) -> str:
    """`http://HOST:PORT` of a bound socket."""
    host, port = sock.getsockname()[:2]
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def serve(
    data_dir: Path,
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    fail_rate: float = 0.0,
    list_lag_ms: int = 0,
    seed: int | None = None,
    on_ready: Callable[[str], None] | None = None,
    pipeline: PipelineReader | None = None,
    transcripts: TranscriptReader | None = None,
    ci_network: str = "none",
) -> None:
    """Serve the emulator until interrupted; `on_ready` gets the URL once it is listening."""
    app = build_app(
        data_dir,
        fail_rate=fail_rate,
        list_lag_ms=list_lag_ms,
        seed=seed,
        pipeline=pipeline,
        transcripts=transcripts,
        ci_network=ci_network,
    )
    sock = bind(host, port)
    remember_port(data_dir, sock)
    if on_ready is not None:
        on_ready(url_of(sock))
    server_for(app).run(sockets=[sock])


SERVED_PORT = "served-port"


def remember_port(data_dir: Path, sock: socket.socket) -> None:
    """Note the port the data is served on: serving it again later reuses it (configs name it)."""
    data_dir.mkdir(parents=True, exist_ok=True)
    (data_dir / SERVED_PORT).write_text(f"{sock.getsockname()[1]}\n", encoding="utf-8")


def recalled_port(data_dir: Path) -> int | None:
    """The port the data was last served on, if noted."""
    try:
        text = (data_dir / SERVED_PORT).read_text(encoding="utf-8").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() and 0 < int(text) < 65536 else None
