"""How `/pipeline` links a repository's issues and their PRs: here, or on the real forge.

A repository this forge holds links to its own issue and PR pages (relative). One it does
not (a home serving a GitHub deployment) links to the forge its `status.json` names
(`forge_url`, e.g. `https://github.com`, whose pages have the same paths). Each open
issue's PR is the one `status.json` records (`prs`), else here the newest PR closing it.
A running job's session links to its transcript page (`web.transcript`) on this forge.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from html import escape
from typing import Any
from urllib.parse import quote

from conveyor.emulator.model.records import repo_row
from conveyor.emulator.model.store import Store
from conveyor.emulator.web.layout import item_href
from conveyor.emulator.web.pull_table import linked_pulls


@dataclass(frozen=True)
class Links:
    """One repository's links: `base` is "" on this forge, else the real forge's address."""

    repo: str
    base: str = ""
    prs: Mapping[int, int] = field(default_factory=dict)

    def href(self, number: int, *, pull: bool) -> str:
        """An issue's or PR's page."""
        return self.base + item_href(self.repo, number, pull=pull)

    def issue(self, number: object) -> str:
        """`#N` linking to the issue, then `PR #M` linking to its PR when it has one."""
        try:
            value = int(str(number))
        except ValueError:
            return escape(str(number))
        shown = f'<a href="{escape(self.href(value, pull=False))}">#{value}</a>'
        pr = self.prs.get(value)
        if pr is None:
            return shown
        return f'{shown} <a class="meta" href="{escape(self.href(pr, pull=True))}">PR #{pr}</a>'

    def session(self, job: dict[str, Any]) -> str:
        """A running job's session, linking to its transcript page when this forge holds the
        repository (the page reads the job folder as it grows: reload it to see more)."""
        key, job_id = job.get("session"), job.get("job_id")
        if not key:
            return "-"
        if self.base or not job_id or not str(job.get("issue")).isdigit():
            return escape(str(key))
        issue = item_href(self.repo, int(str(job.get("issue"))), pull=False)
        href = f"{issue}/sessions/{quote(str(job_id), safe='')}/{quote(str(key), safe='')}"
        return f'<a href="{escape(href)}">{escape(str(key))}</a>'


def _recorded(prs: object) -> dict[int, int]:
    """`status.json`'s `prs` (issue number to PR number, as strings in JSON)."""
    found: dict[int, int] = {}
    for issue, pr in (prs if isinstance(prs, dict) else {}).items():
        if str(issue).isdigit() and isinstance(pr, int):
            found[int(issue)] = pr
    return found


def links_for(store: Store, status: Mapping[str, Any], repo: str) -> Links:
    """The links of `repo` as its status names them and this forge holds it (or not)."""
    prs = _recorded(status.get("prs"))
    owner, _, name = repo.partition("/")
    row = repo_row(store, owner, name)
    if row is not None:
        for issue, pulls in linked_pulls(store, int(row["id"])).items():
            prs.setdefault(issue, pulls[-1])
        return Links(repo, "", prs)
    base = status.get("forge_url")
    real = isinstance(base, str) and base.startswith(("https://", "http://"))
    return Links(repo, str(base).rstrip("/") if real else "", prs)
