"""`conveyor cost`: what agent sessions used and cost, from the ledger (no forge call)."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, cast

import typer

from conveyor.cli.config_load import load_or_exit, repo_home
from conveyor.cli.screen import say_lines

if TYPE_CHECKING:
    from conveyor.orchestrator.shell.ledger import CostLine, GroupBy

GROUPS = ("issue", "stage", "day", "model")
_SPAN = re.compile(r"^(\d+)([mhdw])$")
_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def parse_since(text: str) -> timedelta:
    """A span like `90m`, `24h`, `7d` or `2w`; ValueError naming the expected form."""
    found = _SPAN.match(text.strip())
    if found is None:
        msg = f"--since: expected a number and a unit (m, h, d or w), like 24h; got {text!r}"
        raise ValueError(msg)
    return timedelta(**{_UNITS[found[2]]: int(found[1])})


def _line_json(line: CostLine) -> dict[str, Any]:
    return {
        "key": line.key,
        "sessions": line.sessions,
        "launch_charge": line.launch_charge,
        "input_tokens": line.input_tokens,
        "output_tokens": line.output_tokens,
        "cache_read_tokens": line.cache_read_tokens,
        "cache_write_tokens": line.cache_write_tokens,
        "cost_usd": round(line.cost_usd, 6),
        "unknown_cost_sessions": line.unknown,
    }


def _in_order(lines: list[CostLine], by: str | None) -> list[CostLine]:
    """Issues by number (the ledger's keys are text, where 11 comes before 2); else as read."""
    if by != "issue":
        return lines
    return sorted(lines, key=lambda line: (0, int(line.key)) if line.key.isdigit() else (1, 0))


def _table(lines: list[dict[str, Any]], by: str | None) -> list[str]:
    head = f"{by or 'total':<12} {'sessions':>8} {'input':>10} {'output':>9} "
    head += f"{'cache r':>10} {'cache w':>9} {'charged':>10} {'cost $':>9}"
    out = [head]
    for line in lines:
        unknown = line["unknown_cost_sessions"]
        cost = f"{line['cost_usd']:>9.2f}" + (f"  +{unknown} unknown" if unknown else "")
        out.append(
            f"{line['key']:<12} {line['sessions']:>8} {line['input_tokens']:>10} "
            f"{line['output_tokens']:>9} {line['cache_read_tokens']:>10} "
            f"{line['cache_write_tokens']:>9} {line['launch_charge']:>10} {cost}"
        )
    return out


def cost(
    config: Annotated[
        Path | None,
        typer.Option("--config", envvar="CONVEYOR_CONFIG", help="The repository's config file."),
    ] = None,
    since: Annotated[str, typer.Option("--since", help="How far back: 90m, 24h, 7d, 2w.")] = "24h",
    by: Annotated[
        str | None, typer.Option("--by", help="Group by issue, stage, day or model.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Tokens, launch charges and cost of the agent sessions (unknown costs shown apart)."""
    from conveyor.orchestrator.shell.ledger import LEDGER_FILE, LedgerDb

    try:
        span = parse_since(since)
    except ValueError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(2) from exc
    if by is not None and by not in GROUPS:
        typer.echo(f"--by: expected one of {', '.join(GROUPS)}, got {by!r}", err=True)
        raise typer.Exit(2)
    named = load_or_exit(config)
    start = datetime.now(UTC) - span
    with LedgerDb(repo_home(named) / LEDGER_FILE, readonly=True) as ledger:
        total = ledger.total_since(start)
        grouped = None if by is None else _in_order(ledger.by(cast("GroupBy", by), start), by)
    lines = [_line_json(line) for line in (grouped if grouped is not None else [total])]
    summed = _line_json(total) | {"key": "total"}
    if as_json:
        report = {"since": start.isoformat(), "by": by or "total", "lines": lines}
        typer.echo(
            json.dumps(report | ({"total": summed} if grouped is not None else {}), indent=2)
        )
        return
    table = _table(lines + ([summed] if grouped is not None else []), by)
    if grouped is not None:  # the totals row, under a rule
        table.insert(-1, "-" * len(table[0]))
    say_lines([f"sessions started since {start:%Y-%m-%d %H:%M} UTC", *table])
