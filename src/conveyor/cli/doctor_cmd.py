"""`conveyor doctor`: is this configuration ready to run? One line per check; 1 on a failure."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from conveyor.cli.box_gate import doctor_detail
from conveyor.cli.config_load import load_or_exit
from conveyor.cli.screen import say_lines

if TYPE_CHECKING:
    from conveyor.cli.doctor_checks import Check

EXIT_FAILED = 1


def doctor(
    config: Annotated[
        Path | None,
        typer.Option("--config", envvar="CONVEYOR_CONFIG", help="The repository's config file."),
    ] = None,
    fix: Annotated[bool, typer.Option("--fix", help="Create the labels that are missing.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the checks as JSON.")] = False,
    checkout: Annotated[
        Path | None,
        typer.Option(
            "--checkout",
            help="A checkout of the repository: check paths.tests, the test runner and the "
            "tools against its ecosystems.",
        ),
    ] = None,
    box_trial: Annotated[
        bool,
        typer.Option(
            "--box-trial/--no-box-trial",
            help="Run setup, then the test command, in the job's box on the base branch.",
        ),
    ] = True,
) -> None:
    """Check the config, the account and its rights, labels, tools, the base branch, the issues,
    and that setup and the tests run in the job's box on the base branch."""
    import httpx

    from conveyor.cli import doctor_checks as checks  # lazy: githubkit is slow to import
    from conveyor.cli.doctor_signin import check_signed_in
    from conveyor.forge.connect import CredentialsError, connect
    from conveyor.forge.contact import cause, unreachable
    from conveyor.forge.errors import ForgeError

    named = load_or_exit(
        config,
        place=True,
        credentials=True,
        report=lambda lines: _report(
            [checks.Check("config", False, line) for line in lines], as_json=as_json
        ),
    )
    loaded, path = named.config, named.resolved
    found = [checks.Check("config", True, str(path))]  # a mistake in it ends the doctor above
    found += checks.check_tools(loaded)
    found.append(checks.Check("sandbox", *doctor_detail(loaded)))
    found += check_signed_in(loaded, os.environ)
    found += checks.check_commands(loaded)
    if checkout is not None:
        from conveyor.cli.ecosystem_checks import check_ecosystems

        found += [checks.Check(c.name, c.ok, c.detail) for c in check_ecosystems(loaded, checkout)]
    try:
        forge = connect(loaded, os.environ, base_dir=path.parent)
        # The repository first: a wrong name (or one the token cannot see) is one cause,
        # said once, not a failed permission, collaborator and label check each.
        found.append(checks.check_repository(forge, loaded))
        if found[-1].ok:
            found += checks.check_account(forge, loaded)
            found.append(checks.check_labels(forge, loaded, fix=fix))
            found.append(checks.check_base(forge, loaded))
            found.append(checks.check_open_issues(forge, loaded))
            if box_trial:
                from conveyor.cli.doctor_box import check_box_trial

                found += check_box_trial(forge, loaded, os.environ, path.parent)
    except ForgeError as exc:
        found.append(checks.Check("forge", False, cause(exc, loaded)))
    except (CredentialsError, OSError) as exc:
        found.append(checks.Check("forge", False, str(exc)))
    except httpx.TransportError as exc:
        found.append(checks.Check("forge", False, unreachable(loaded, str(exc) or "no answer")))
    if not _report(found, as_json=as_json):
        raise typer.Exit(EXIT_FAILED)


def _report(found: list[Check], *, as_json: bool) -> bool:
    """Print the checks (a line each, or one JSON object); whether all passed."""
    failing = [check for check in found if not check.ok]
    failed = list(dict.fromkeys(check.name for check in failing))  # each name once
    if as_json:
        listed = [{"name": c.name, "ok": c.ok, "detail": c.detail} for c in found]
        typer.echo(json.dumps({"ok": not failed, "failed": failed, "checks": listed}, indent=2))
        return not failed
    lines = [f"{'ok  ' if check.ok else 'FAIL'} {check.name}: {check.detail}" for check in found]
    if failed:
        lines.append(f"doctor: {len(failing)} failed: {', '.join(failed)}")
    else:
        lines.append("doctor: all checks passed")
    say_lines(lines)  # details quote the forge (labels, logins, issues' titles)
    return not failed
