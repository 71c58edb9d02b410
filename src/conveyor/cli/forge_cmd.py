"""`conveyor forge …`: run and administer the embedded GitHub-compatible forge."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

app = typer.Typer(
    help="The embedded GitHub-compatible forge.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

DataOption = Annotated[
    Path, typer.Option("--data", help="The forge's data folder (created when missing).")
]
SlugArgument = Annotated[str, typer.Argument(metavar="OWNER/NAME", help="The repository.")]


def _fail(message: str) -> typer.Exit:
    """Print an error line and return the exit to raise."""
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(1)


@app.command("serve")
def serve(
    data: DataOption,
    *,
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[
        int | None,
        typer.Option(
            help="Port; 0 picks a free one. Default: the port this data was last served on"
            " (the demo's config names it), else a free one.",
            min=0,
            max=65535,
        ),
    ] = None,
    fail_rate: Annotated[
        float, typer.Option(help="Share of requests answered 502 or 429.", min=0.0, max=1.0)
    ] = 0.0,
    list_lag_ms: Annotated[
        int, typer.Option(help="New comments show in lists only after this delay.", min=0)
    ] = 0,
    seed: Annotated[int | None, typer.Option(help="Seed of the fault knobs' randomness.")] = None,
    pipeline: Annotated[
        Path | None,
        typer.Option(
            help="A $CONVEYOR_HOME whose status and spending /pipeline shows"
            " (default: DATA/conveyor/home, where the demo keeps it, when it exists)."
        ),
    ] = None,
    ci_network: Annotated[
        str,
        typer.Option(
            help="The CI's network for repositories that name none: `none`, `registries`"
            " (what the CI command's tools would reach) or hosts, comma-separated.",
        ),
    ] = "none",
) -> None:
    """Serve the forge's API and its pages; prints the URL once listening."""
    from conveyor.emulator.app.asgi import recalled_port
    from conveyor.emulator.app.asgi import serve as run_server
    from conveyor.emulator.model.ci_network import parse_ci_network
    from conveyor.job.transcripts import home_transcripts
    from conveyor.orchestrator.shell.pipeline_files import PipelineFiles

    try:
        network = parse_ci_network(ci_network)
    except ValueError as exc:
        raise _fail(str(exc)) from exc
    recalled = recalled_port(data) if port is None else None
    chosen = port if port is not None else (recalled or 0)
    demo_home = data / "conveyor" / "home"
    if pipeline is None and demo_home.is_dir():
        pipeline = demo_home

    def ready(url: str) -> None:
        typer.echo(url)
        sys.stdout.flush()  # a pipe reading the URL must not wait for the server to stop

    try:
        run_server(
            data,
            host,
            chosen,
            fail_rate=fail_rate,
            list_lag_ms=list_lag_ms,
            seed=seed,
            on_ready=ready,
            pipeline=None if pipeline is None else PipelineFiles(pipeline),
            transcripts=None if pipeline is None else home_transcripts(pipeline),
            ci_network=network,
        )
    except OSError as exc:
        why = exc.strerror or str(exc)
        if recalled:
            why += " (the port this data was last served on; --port 0 picks a free one)"
        raise _fail(f"cannot serve on {host}:{chosen}: {why}") from exc


@app.command("add-user")
def add_user(
    data: DataOption, login: Annotated[str, typer.Argument(help="The user's login.")]
) -> None:
    """Create a user (when missing) and print a new token for it, alone on stdout."""
    from conveyor.emulator.model.admin import AdminError
    from conveyor.emulator.model.admin import add_user as run

    try:
        typer.echo(run(data, login))
    except AdminError as exc:
        raise _fail(str(exc)) from exc


@app.command("add-collaborator")
def add_collaborator(
    data: DataOption,
    slug: SlugArgument,
    login: Annotated[str, typer.Argument(help="The user's login (created when missing).")],
    permission: Annotated[
        str, typer.Option(help="read, triage, write, maintain or admin.")
    ] = "write",
) -> None:
    """Make a user a collaborator of a repository."""
    from conveyor.emulator.model.admin import AdminError
    from conveyor.emulator.model.admin import add_collaborator as run

    try:
        run(data, slug, login, permission)
    except AdminError as exc:
        raise _fail(str(exc)) from exc
    typer.echo(f"{login} is a collaborator of {slug} ({permission})")


@app.command("add-app")
def add_app(
    data: DataOption,
    slug: Annotated[str, typer.Argument(help="The app's slug; its bot is SLUG[bot].")],
    install: Annotated[
        str | None, typer.Option(metavar="OWNER/NAME", help="Install the app on this repository.")
    ] = None,
) -> None:
    """Create a GitHub App with its private key; print its id, installation id and key path."""
    from conveyor.emulator.model.admin import AdminError
    from conveyor.emulator.model.admin import add_app as run

    try:
        created = run(data, slug, install)
    except AdminError as exc:
        raise _fail(str(exc)) from exc
    typer.echo(f"app_id {created.app_id}")
    typer.echo(f"installation_id {created.installation_id or ''}".rstrip())
    typer.echo(f"private_key_path {created.private_key_path.resolve()}")


@app.command("create-repo")
def create_repo(
    data: DataOption,
    slug: SlugArgument,
    *,
    src: Annotated[
        Path, typer.Option("--from", help="A folder, or a git repository with its history.")
    ],
    at: Annotated[str | None, typer.Option(help="Import the history up to this commit.")] = None,
    default_branch: Annotated[str | None, typer.Option(help="The default branch's name.")] = None,
    ci: Annotated[str | None, typer.Option(help="CI command run on every PR head.")] = None,
    ci_network: Annotated[
        str | None,
        typer.Option(
            help="Its CI's network: `none`, `registries` (what the CI command's tools would"
            " reach) or hosts, comma-separated (default: the server's).",
        ),
    ] = None,
    wiki: Annotated[
        bool, typer.Option(help="Create the wiki too, with its first page (Home.md).")
    ] = False,
    wiki_from: Annotated[
        Path | None, typer.Option("--wiki-from", help="Create the wiki with this folder's pages.")
    ] = None,
    one_commit: Annotated[
        bool, typer.Option(help="From a git repository, import only that one commit.")
    ] = False,
) -> None:
    """Create a repository from a folder or a git repository; the owner becomes a user.

    From a git repository, the history up to `--at` (HEAD by default) and its tags
    are imported, tracked files included whatever `.gitignore` says; a folder is
    imported as one commit of the files its `.gitignore` does not exclude.
    """
    from conveyor.emulator.model.admin import AdminError
    from conveyor.emulator.repos.create import create_repo as run

    try:
        created = run(
            data,
            slug,
            src,
            at=at,
            default_branch=default_branch,
            ci=ci,
            wiki=wiki or wiki_from is not None,
            wiki_src=wiki_from,
            one_commit=one_commit,
            ci_network=ci_network,
        )
    except (AdminError, ValueError, OSError) as exc:
        raise _fail(str(exc)) from exc
    typer.echo(f"{created.full_name} {created.clone_url}")


@app.command("create-wiki")
def create_wiki(
    data: DataOption,
    slug: SlugArgument,
    *,
    src: Annotated[
        Path | None, typer.Option("--from", help="A folder of pages (default: one Home.md).")
    ] = None,
) -> None:
    """Give a repository its wiki, as making its first page in GitHub's browser view does."""
    from conveyor.emulator.model.admin import AdminError
    from conveyor.emulator.repos.wiki import create_wiki as run

    try:
        url = run(data, slug, src)
    except (AdminError, ValueError, OSError) as exc:
        raise _fail(str(exc)) from exc
    typer.echo(url)
