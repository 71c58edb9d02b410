"""`conveyor run --dry-run`: what the next tick would start, in order, each with its reason and
the budgets it would be charged against, and why everything else waits; the forge unchanged."""

from __future__ import annotations

import os
from datetime import UTC, datetime

from conveyor.cli.config_load import LoadedConfig, repo_home
from conveyor.cli.screen import say_lines
from conveyor.core.budget import money_spent, spent
from conveyor.core.config import Config
from conveyor.core.state import IssueState, Pool
from conveyor.orchestrator.decisions import Decision, StartJob, describe
from conveyor.orchestrator.shell.preview import Preview

EXIT_FORGE = 1
DRY = "dry run: nothing is started and nothing is written to the forge"


def _tokens(value: int) -> str:
    return f"{value:,}"


def budget_line(start: StartJob, state: IssueState | None, preview: Preview, config: Config) -> str:
    """The budgets one start is charged against: the issue's token ceiling (its launch charge
    on top of what it spent), the hourly tokens, the issue's and the day's money."""
    used = spent(state, Pool.ISSUE) if state is not None else 0
    limits, money = config.limits, config.money
    parts = [f"charges {_tokens(start.charge)} tokens at launch"]
    if limits.issue_token_ceiling:
        parts.append(
            f"#{start.issue} has used {_tokens(used)} of its {_tokens(limits.issue_token_ceiling)}"
            " (limits.issue_token_ceiling)"
        )
    if limits.tokens_per_hour:
        hour = preview.snapshot.ledger.charges_last_hour
        parts.append(f"{_tokens(hour)} of {_tokens(limits.tokens_per_hour)} this hour")
    if money.per_issue is not None:
        cost = money_spent(state) if state is not None else 0.0
        parts.append(
            f"{cost:.2f} of {money.per_issue:.2f} USD for #{start.issue} (money.per_issue)"
        )
    if money.per_day is not None:
        parts.append(f"{preview.spent_today:.2f} of {money.per_day:.2f} USD today (money.per_day)")
    else:
        parts.append("no daily money cap (money.per_day)")
    return "; ".join(parts)


def render(preview: Preview, config: Config) -> list[str]:
    """The preview as lines a person reads, starts first and in the order they would happen."""
    chosen = preview.plan
    lines = [f"{DRY} ({config.repo})"]
    handed = chosen.handed
    landings = handed.starts if handed is not None else ()
    asked: tuple[Decision, ...] = handed.stops if handed is not None else ()
    acts = [*chosen.watchdog, *chosen.escalations, *asked, *chosen.closeouts]
    if acts:
        lines.append("the watchdog and close-out would do:")
        lines.extend(f"  {describe(act)}" for act in acts)
    starts = (*landings, *chosen.schedule.starts)
    lines.append("would start, in this order:" if starts else "would start nothing")
    for index, start in enumerate(starts, start=1):
        state = preview.states.get(start.issue)
        lines.append(f"  {index}. #{start.issue} {start.stage.value}: {start.reason}")
        lines.append(f"     {budget_line(start, state, preview, config)}")
    holds = chosen.holds()
    if holds:
        lines.append("would wait:")
        lines.extend(f"  #{h.issue} {h.stage.value}: {h.reason}" for h in holds)
    lines.extend(f"pause {p.kind}: {p.reason}" for p in chosen.schedule.pauses)
    lines.extend(f"note: {note}" for note in preview.notes)
    return lines


def dry_run(named: LoadedConfig, *, now: datetime | None = None) -> int:
    """Read the forge as a tick would and print what it would do; 1 when it cannot be read."""
    from conveyor.cli.doctor_checks import check_tools
    from conveyor.forge.connect import connect
    from conveyor.job.layout import load_lane
    from conveyor.orchestrator.shell.preview import preview
    from conveyor.orchestrator.shell.snapshot_store import CACHE_FILE, SnapshotStore

    config = named.config
    home = repo_home(named)
    forge = connect(config, os.environ, base_dir=named.resolved.parent)
    with SnapshotStore(home / CACHE_FILE, config.account.login) as store:
        found = preview(
            forge=forge, store=store, config=config, home=home, lane=load_lane(home),
            now=now or datetime.now(UTC),
        )  # fmt: skip
    if isinstance(found, str):
        say_lines([DRY, f"the forge could not be read: {found}"])
        return EXIT_FORGE
    missing = [f"note: {c.name}: {c.detail}" for c in check_tools(config) if not c.ok]
    say_lines([*render(found, config), *missing])
    return 0
