"""`/pipeline`'s section on people's PRs: the reviews running (with their session, linking to
its transcript) and the PRs held, with why, read from `status.json` (stage `pr-review`)."""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import Any

from conveyor.emulator.web.pipeline_links import Links

STAGE = "pr-review"  # as `conveyor.core.state.Stage.PR_REVIEW` names a person's PR's review


def _pr(links: Links, number: object) -> str:
    if not str(number).isdigit():
        return escape(str(number))
    href = links.href(int(str(number)), pull=True)
    return f'<a href="{escape(href)}">PR #{int(str(number))}</a>'


def reviews_section(links: Links, status: Mapping[str, Any]) -> str:
    """The people's PRs under review and held ("" when there are none)."""
    running = [j for j in status.get("jobs") or [] if j.get("stage") == STAGE]
    held = [h for h in status.get("holds") or [] if h.get("stage") == STAGE]
    if not running and not held:
        return ""
    lines = [f"{_pr(links, j.get('issue'))} under review: session {links.session(j)}"
             for j in running]  # fmt: skip
    lines += [f"{_pr(links, h.get('issue'))} held: {escape(str(h.get('reason')))}" for h in held]
    return (
        "<h3>People's PRs under review</h3><ul>" + "".join(f"<li>{x}</li>" for x in lines) + "</ul>"
    )
