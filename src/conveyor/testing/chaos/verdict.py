"""What a chaos run left on the forge: each issue's outcome, the invariants, the figures.

Everything is read from the forge (issues, labels, comments, PRs, its git objects), but
for the lost-commit count, which looks for commits in the checkouts killed jobs left.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime

from conveyor.core.invariants import IssueSnapshot, PrSnapshot, Snapshot, check_invariants
from conveyor.core.labels import STOP_PREFIX, Status
from conveyor.core.signatures import parse_marker
from conveyor.core.state import Stage
from conveyor.core.state_codec import find_state
from conveyor.core.stops import StopCode
from conveyor.testing import http
from conveyor.testing.chaos.commits import lost_commits
from conveyor.testing.chaos.run import ChaosRun
from conveyor.testing.chaos.scenario import done_module
from conveyor.testing.world import ACCOUNT, TRUSTED

STOP_KIND = "stop"
LEASE_HOURS = 3.0  # the config's default, which the chaos config keeps


@dataclass(frozen=True, slots=True)
class Outcome:
    """One issue as the forge shows it at the end."""

    number: int
    tag: str
    merged: bool
    stops: tuple[str, ...]
    stop_comments: int
    closed_working: bool
    prs: int
    content_ok: bool
    branch_changed_ever: bool
    violations: tuple[str, ...] = ()

    @property
    def kind(self) -> str:
        """`merged`, `stopped:<control>` or `unfinished`."""
        if self.merged:
            return "merged"
        if self.stops:
            return "stopped:" + ",".join(s.removeprefix(STOP_PREFIX) for s in self.stops)
        return "unfinished"


def _pr_heads(run: ChaosRun) -> Counter[str]:
    world = run.world
    url = f"{world.server.url}/repos/{world.repo}/pulls?state=all&per_page=100"
    answer = http.get(url, headers={"Authorization": f"token {world.tokens[TRUSTED]}"}, timeout=30)
    answer.raise_for_status()
    return Counter(pr["head"]["ref"] for pr in answer.json())


def _outcome(run: ChaosRun, tag: str, number: int, heads: Counter[str]) -> Outcome:
    world = run.world
    issue = world.issue(number)
    pr = world.pr(number)
    comments = world.comments(number)
    snapshot = IssueSnapshot(
        number, issue.state == "open", issue.labels, comments,
        None if pr is None else PrSnapshot(pr.number, pr.title, pr.body),
    )  # fmt: skip
    found = check_invariants(Snapshot(ACCOUNT, datetime.now(UTC), LEASE_HOURS, (snapshot,)))
    violations = [f"{v.rule}: {v.detail}" for v in found]
    state = find_state(comments, ACCOUNT).state
    if issue.state == "closed" and (state is None or state.stage is not Stage.DONE):
        violations.append(f"closed with its state at {state.stage.value if state else 'none'}")
    stop_comments = [
        c
        for c in comments
        if c.author == ACCOUNT and (m := parse_marker(c.body)) is not None and m.kind == STOP_KIND
    ]
    merged = issue.state == "closed" and Status.MERGED in issue.labels and bool(pr and pr.merged)
    content = world.base_file(f"inventory/{tag}.py")
    return Outcome(
        number=number,
        tag=tag,
        merged=merged,
        stops=tuple(sorted(n for n in issue.labels if n.startswith(STOP_PREFIX))),
        stop_comments=len(stop_comments),
        closed_working=issue.state == "closed" and Status.WORKING in issue.labels,
        prs=heads[f"agent/issue-{number}"],
        content_ok=not merged or content == done_module(tag),
        branch_changed_ever=any(StopCode.BRANCH_CHANGED.label in c.body for c in stop_comments),
        violations=tuple(violations),
    )


@dataclass(frozen=True, slots=True)
class Verdict:
    """The outcomes, the lost commits, and which invariants failed (empty: all hold)."""

    outcomes: tuple[Outcome, ...]
    lost: tuple[str, ...]

    def broken(self) -> list[str]:
        """One line per invariant that does not hold, naming the issue."""
        out: list[str] = []
        for o in self.outcomes:
            where = f"#{o.number} ({o.tag})"
            if not o.merged and not (len(o.stops) == 1 and o.stop_comments >= 1):
                out.append(f"{where}: neither merged nor at one documented stop ({o.kind})")
            if o.stops or o.branch_changed_ever:
                out.append(f"{where}: a false stop: {o.kind}")
            if o.closed_working:
                out.append(f"{where}: closed but still labelled {Status.WORKING.value}")
            if o.prs > 1:
                out.append(f"{where}: {o.prs} PRs")
            if not o.content_ok:
                out.append(f"{where}: merged without its change on the base")
            out += [f"{where}: {v}" for v in o.violations]
        out += [f"lost commit {line}" for line in self.lost]
        return out

    def figures(self, run: ChaosRun) -> dict[str, object]:
        """The run's figures, as the bench prints them."""
        kinds = Counter(o.kind for o in self.outcomes)
        killed = Counter(k.target for k in run.killed)
        stages = Counter(k.stage for k in run.killed if k.stage is not None)
        return {
            "issues": len(self.outcomes),
            "kills": len(run.killed),
            "job_kills": killed["job"],
            "orchestrator_kills": killed["orchestrator"],
            "kills_by_stage": dict(sorted(stages.items())),
            "kills_missed": run.missed,
            "jobs_started": run.jobs_started,
            "faults_injected": run.faults,
            "requests": run.requests,
            "outcomes": dict(sorted(kinds.items())),
            "merged": kinds["merged"],
            "false_stops": sum(1 for o in self.outcomes if o.stops or o.branch_changed_ever),
            "false_branch_changed": sum(1 for o in self.outcomes if o.branch_changed_ever),
            "closed_working": sum(1 for o in self.outcomes if o.closed_working),
            "duplicate_prs": sum(max(0, o.prs - 1) for o in self.outcomes),
            "lost_commits": len(self.lost),
            "orchestrator_restarts": run.restarts,
            "timed_out": run.timed_out,
            "wall_s": run.wall_s,
        }


def judge(run: ChaosRun) -> Verdict:
    """Read the forge once the run ended."""
    heads = _pr_heads(run)
    outcomes = tuple(_outcome(run, tag, n, heads) for tag, n in run.numbers.items())
    lost = lost_commits(run.world.repo_home, run.world.bare(), run.base_sha)
    return Verdict(outcomes, tuple(lost))
