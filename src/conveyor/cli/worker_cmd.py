"""`conveyor worker`: run stage jobs from a Temporal task queue on this machine."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from conveyor.cli.config_load import load_or_exit, repo_home
from conveyor.cli.temporal_opts import (
    CertOption,
    KeyOption,
    NamespaceOption,
    QueueOption,
    TemporalOption,
    TlsOption,
)

if TYPE_CHECKING:
    from conveyor.temporal.activity import RepoSetup

EXIT_USAGE = 2
EXIT_UNREACHABLE = 1


def _fail(line: str, code: int = EXIT_USAGE) -> typer.Exit:
    typer.echo(line, err=True)
    return typer.Exit(code)


def _config_from_env() -> list[Path]:
    """The config named by CONVEYOR_CONFIG, when no --config was given."""
    return [Path(os.environ["CONVEYOR_CONFIG"])] if "CONVEYOR_CONFIG" in os.environ else []


def _served_repos(paths: list[Path]) -> dict[str, RepoSetup]:
    """Each config's repository and its home; a repository named by two configs is refused."""
    from conveyor.temporal.activity import RepoSetup

    if not paths:
        raise _fail("--config: required, the config file of each repository this worker serves")
    repos: dict[str, RepoSetup] = {}
    for path in paths:
        named = load_or_exit(path, credentials=True)
        loaded = named.config
        if loaded.repo in repos:
            raise _fail(f"--config {path}: {loaded.repo} is already served by another --config")
        repos[loaded.repo] = RepoSetup(named.resolved, repo_home(named))
    return repos


def worker(  # noqa: PLR0917 - typer passes options as parameters
    temporal: TemporalOption = None,
    queue: QueueOption = "conveyor",
    config: Annotated[
        list[Path] | None,
        typer.Option(
            "--config", help="A repository's config file (repeat for each repository served)."
        ),
    ] = None,
    jobs: Annotated[int, typer.Option("--jobs", min=1, help="Stage jobs at once.")] = 2,
    namespace: NamespaceOption = "default",
    tls: TlsOption = False,
    tls_cert: CertOption = None,
    tls_key: KeyOption = None,
) -> None:
    """Run stage jobs from the task queue; SIGTERM or Ctrl-C hands running jobs to other workers."""
    from conveyor.job.entry import conveyor_argv
    from conveyor.job.fork_start import job_start
    from conveyor.temporal.forker import ForkServer
    from conveyor.temporal.target import TargetError, TemporalTarget, job_environment
    from conveyor.temporal.worker import serve

    if temporal is None:
        raise _fail("--temporal: required, the Temporal service as HOST:PORT")
    try:
        target = TemporalTarget(temporal, queue, namespace, tls, tls_cert, tls_key)
    except TargetError as exc:
        raise _fail(str(exc)) from exc
    repos = _served_repos(config or _config_from_env())
    forker = None
    if job_start(os.environ) == "fork":
        forker = ForkServer.launch(job_environment(os.environ))
    try:
        code = asyncio.run(
            serve(target, repos, os.environ, tuple(conveyor_argv()), jobs=jobs, forker=forker)
        )
    except TargetError as exc:
        raise _fail(str(exc)) from exc
    except RuntimeError as exc:  # the SDK's "Failed client connect: …"
        raise _fail(f"--temporal {temporal}: {exc}", EXIT_UNREACHABLE) from exc
    finally:
        if forker is not None:
            forker.close()
    raise typer.Exit(code)
