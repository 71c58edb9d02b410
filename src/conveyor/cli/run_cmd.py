"""`conveyor run` (the orchestrator loop) and `conveyor tick` (one pass, waiting for its jobs)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from conveyor.cli.box_gate import require_box
from conveyor.cli.config_load import load_or_exit
from conveyor.cli.temporal_opts import (
    CertOption,
    KeyOption,
    NamespaceOption,
    QueueOption,
    TemporalOption,
    TlsOption,
)
from conveyor.core.config import Config

if TYPE_CHECKING:
    from conveyor.orchestrator.shell.loop import ExecutorFactory, Interrupts
    from conveyor.orchestrator.shell.tick import Orchestrator
    from conveyor.orchestrator.shell.webhooks import WebhookServer

EXIT_USAGE = 2
ConfigOption = Annotated[
    Path | None,
    typer.Option("--config", envvar="CONVEYOR_CONFIG", help="The repository's config file."),
]


def _load(config: Path | None) -> tuple[Config, Path]:
    """The config and its resolved path, or a usage error naming each mistake."""
    named = load_or_exit(config, credentials=True)
    return named.config, named.resolved


def _usage(message: str) -> typer.Exit:
    typer.echo(message, err=True)
    return typer.Exit(EXIT_USAGE)


def _webhook_secret(port: int | None, secret_env: str | None) -> bytes | None:
    """The webhook secret from the variable `secret_env` names, or None without webhooks."""
    if port is None and secret_env is None:
        return None
    if port is None or secret_env is None:
        raise _usage("--webhook-port and --webhook-secret-env go together")
    if not 0 <= port <= 65535:
        raise _usage(f"--webhook-port: {port} is not a TCP port")
    secret = os.environ.get(secret_env, "")
    if not secret:
        raise _usage(f"--webhook-secret-env: the variable {secret_env} is not set or empty")
    return secret.encode()


def _temporal_executor(
    loaded: Config,
    *,
    temporal: str | None,
    queue: str,
    namespace: str,
    tls: tuple[bool, Path | None, Path | None],
    heartbeat: float,
) -> ExecutorFactory:
    """What builds the Temporal executor once the home and lane are known (usage errors now)."""
    from conveyor.temporal.executor import TemporalExecutor
    from conveyor.temporal.target import TargetError, TemporalTarget

    if temporal is None:
        typer.echo("--executor temporal: --temporal HOST:PORT is required", err=True)
        raise typer.Exit(EXIT_USAGE)
    try:
        target = TemporalTarget(temporal, queue, namespace, *tls)
    except TargetError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(EXIT_USAGE) from exc

    def build(home: Path, lane: str) -> TemporalExecutor:
        return TemporalExecutor(target, loaded, lane, home, os.environ, heartbeat_seconds=heartbeat)

    return build


def run(  # noqa: PLR0917 - typer passes options as parameters
    config: ConfigOption = None,
    until_idle: Annotated[
        bool,
        typer.Option("--until-idle", help="Exit once nothing runs and nothing can start."),
    ] = False,
    webhook_port: Annotated[
        int | None,
        typer.Option("--webhook-port", help="Receive GitHub's webhook deliveries on this port."),
    ] = None,
    webhook_secret_env: Annotated[
        str | None,
        typer.Option(
            "--webhook-secret-env",
            help="The environment variable holding the webhooks' secret (HMAC-SHA256).",
        ),
    ] = None,
    webhook_host: Annotated[
        str,
        typer.Option("--webhook-host", help="The address the webhook receiver listens on."),
    ] = "127.0.0.1",
    executor: Annotated[
        str,
        typer.Option(
            "--executor", help="Where stage jobs run: `local` processes or `temporal` workers."
        ),
    ] = "local",
    temporal: TemporalOption = None,
    queue: QueueOption = "conveyor",
    namespace: NamespaceOption = "default",
    tls: TlsOption = False,
    tls_cert: CertOption = None,
    tls_key: KeyOption = None,
    heartbeat_timeout: Annotated[
        float,
        typer.Option("--heartbeat-timeout", min=1.0, help="Seconds a silent worker keeps its job."),
    ] = 30.0,
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run",
            help="Print what the next tick would start, in order, each with its reason and"
            " budgets, and why the rest waits; start nothing and write nothing to the forge.",
        ),
    ] = False,
) -> None:
    """Keep taking waiting issues through their stages; Ctrl-C cools down, twice stops jobs.

    With webhooks, a delivery about the repository's issues, comments, PRs or checks
    ticks at once; polling every `limits.poll_seconds` goes on as the fallback.
    """
    if dry_run:
        from conveyor.cli.dry_run import dry_run as preview  # lazy: githubkit is slow to import

        raise typer.Exit(preview(load_or_exit(config, credentials=True)))
    secret = _webhook_secret(webhook_port, webhook_secret_env)
    from conveyor.orchestrator.shell.loop import Interrupts  # lazy: githubkit is slow to import

    if executor not in ("local", "temporal"):
        raise _usage(f"--executor: expected local or temporal, got {executor!r}")
    loaded, path = _load(config)
    require_box(loaded)
    factory = None
    if executor == "temporal":
        factory = _temporal_executor(
            loaded,
            temporal=temporal,
            queue=queue,
            namespace=namespace,
            tls=(tls, tls_cert, tls_key),
            heartbeat=heartbeat_timeout,
        )
    interrupts = Interrupts()
    orc = _open_orchestrator(loaded, path, factory, interrupts, temporal=temporal)
    receiver = None
    if secret is not None and webhook_port is not None:
        receiver = _receive_webhooks(orc, webhook_host, webhook_port, secret)
    raise typer.Exit(_run_loop(orc, interrupts, until_idle=until_idle, receiver=receiver))


def _open_orchestrator(
    loaded: Config,
    path: Path,
    factory: ExecutorFactory | None,
    interrupts: Interrupts,
    *,
    temporal: str | None,
) -> Orchestrator:
    """The orchestrator, or exit: 2 when the credentials are wrong, 1 when Temporal fails."""
    from conveyor.forge.connect import CredentialsError
    from conveyor.orchestrator.shell.loop import open_orchestrator

    try:
        return open_orchestrator(
            loaded,
            path,
            os.environ,
            echo=True,
            executor_for=factory,
            stop=lambda: interrupts.count > 0,
        )
    except CredentialsError as exc:
        raise _usage(str(exc)) from exc
    except (OSError, RuntimeError) as exc:  # Temporal unreachable, or refusing
        typer.echo(f"--temporal {temporal}: {exc}", err=True)
        raise typer.Exit(1) from exc


def _receive_webhooks(orc: Orchestrator, host: str, port: int, secret: bytes) -> WebhookServer:
    """The webhook receiver, listening, its deliveries waking the loop; usage error when the
    address cannot be listened on."""
    from conveyor.orchestrator.shell.loop import utc_now
    from conveyor.orchestrator.shell.webhooks import WebhookServer

    try:
        receiver = WebhookServer(
            host,
            port,
            secret=secret,
            repo=orc.config.repo,
            account=orc.config.account.login,
            log=orc.log,
            clock=utc_now,
            on_ci=orc.ci_reported.add,
            on_feedback=orc.feedback_prs.add,
        )
    except OSError as exc:
        raise _usage(f"--webhook-port: cannot listen on {host}:{port}: {exc.strerror}") from exc
    orc.log.write(utc_now(), f"webhooks: listening on {host}:{receiver.port}")
    return receiver


def _run_loop(
    orc: Orchestrator, interrupts: Interrupts, *, until_idle: bool, receiver: WebhookServer | None
) -> int:
    """Tick until idle (or for ever), Ctrl-C handled; the exit code. The receiver is closed."""
    from conveyor.orchestrator.shell.loop import catching, run_loop

    try:
        with catching(interrupts), orc.store:
            return run_loop(orc, interrupts, until_idle=until_idle, wake=receiver)
    finally:
        if receiver is not None:
            receiver.close()


def tick(config: ConfigOption = None) -> None:
    """One orchestrator pass: start what is due, then wait for the jobs it started."""
    from conveyor.forge.connect import CredentialsError  # lazy: githubkit is slow to import
    from conveyor.orchestrator.shell.loop import open_orchestrator, run_once

    loaded, path = _load(config)
    require_box(loaded)
    try:
        orc = open_orchestrator(loaded, path, os.environ, echo=True)
    except CredentialsError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(EXIT_USAGE) from exc
    with orc.store:
        code = run_once(orc)
    raise typer.Exit(code)
