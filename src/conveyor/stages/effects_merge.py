"""Effects and results of the last stages before a merge: checks, sync and merge (no model)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from conveyor.core.ci_gate import Gate
from conveyor.core.merge_rules import Behind
from conveyor.core.stacking import StackMove
from conveyor.core.state import CiWait, StackedOn

# -- effects -------------------------------------------------------------------------


@dataclass(frozen=True)
class GuardBranch:
    """Compare the PR's head on the forge with the recorded head (STOP-*: branch-changed)."""

    recorded: str | None


@dataclass(frozen=True)
class VerifyHead:
    """Run verify at the checkout's head; `tests_only` after a clean rebase at merge (MRG-7)."""

    tests_only: bool = False


@dataclass(frozen=True)
class ReadCi:
    """Read the CI gate on `sha`, with the wait saved at the previous read."""

    sha: str
    wait: CiWait | None


@dataclass(frozen=True)
class SyncBase:
    """Fetch and rebase onto the base, leaving a conflicted rebase in place (SYNC-2).

    A stacked issue (`stacked_on`) replays only its own commits: onto its
    prerequisite's head while that is open, onto the base once it merged (STK-2).
    """

    stacked_on: StackedOn | None = None


@dataclass(frozen=True)
class FinishSync:
    """Check the rebase finished on the current base with no markers, then push with lease.

    A stacked rebase is checked against `onto` (the commit it went onto), and the
    PR is then based on `pr_base` when given.
    """

    onto: str | None = None
    pr_base: str | None = None


@dataclass(frozen=True)
class RestoreBranch:
    """Abort an unfinished rebase and put the checkout back at the branch as last fetched."""


@dataclass(frozen=True)
class ReadQueue:
    """Merge order: the open issues whose older PR is past review (MRG-9)."""


@dataclass(frozen=True)
class CheckBehind:
    """Behind before merging: the forge's answer and the local check of `verified_sha`."""

    verified_sha: str


@dataclass(frozen=True)
class RebaseHere:
    """Rebase onto the base in the merge job (a stacked issue: as `SyncBase` does); a clean
    result is pushed with lease."""

    stacked_on: StackedOn | None = None


@dataclass(frozen=True)
class ReadStack:
    """Where the prerequisite a stacked issue is built on stands (MRG-11, STK-11)."""

    stacked_on: StackedOn


@dataclass(frozen=True)
class MergePr:
    """Squash-merge the PR with `sha` as the expected head."""

    sha: str


@dataclass(frozen=True)
class HandOver:
    """Leave the PR, verified at `sha`, for a person to merge (`handover.merge = "person"`):
    its label, assignees and review requests, and a signed comment on the issue and the PR.

    A PR a person already merged is read as that merge instead (an approved issue's landing);
    one a person closed is reopened first (they lifted the `pr-closed` stop).
    """

    sha: str


@dataclass(frozen=True)
class PersonMerged:
    """A handed-over PR a person merged: the commit on the base, who merged it (None: the
    forge did not say) and the PR's head they merged."""

    sha: str
    login: str | None
    head: str


@dataclass(frozen=True)
class CloseOut:
    """After the merge: comment, labels, claims, issue, branch, checkout, teardown, parent.

    `person` is set when a person merged the handed-over PR; `verified` is the head Conveyor
    verified and handed over (the closing comment says when they differ).
    """

    merge_sha: str
    tests_only: bool
    person: PersonMerged | None = None
    verified: str = ""


@dataclass(frozen=True)
class CheckWiki:
    """wiki-check on the wiki checkout's head: links resolve, new pages are linked (CHK-9)."""


@dataclass(frozen=True)
class PublishWiki:
    """After the PR merged: publish the wiki commits and list them on the issue (MRG-16)."""


@dataclass(frozen=True)
class FinishWiki:
    """A wiki-only change: publish it, close the issue listing the commits, agent:merged."""


# The merge order, behind, the rebase, the squash, the close-out and the wiki's publish.
LandingEffect = (
    ReadQueue
    | CheckBehind
    | RebaseHere
    | ReadStack
    | MergePr
    | HandOver
    | CloseOut
    | CheckWiki
    | PublishWiki
    | FinishWiki
)
MergeEffect = (
    GuardBranch | VerifyHead | ReadCi | SyncBase | FinishSync | RestoreBranch | LandingEffect
)

# -- results -------------------------------------------------------------------------


@dataclass(frozen=True)
class Verified:
    """Verify's verdict at `head_sha`: a summary and one line per failure.

    `environment` names an environment error (command and output tail), if any. `held`
    names what a person may accept when every failure is the judges' (check configuration
    and suppressions; `verify.judges`), with `facts` showing them; empty otherwise.
    """

    passed: bool
    head_sha: str
    summary: str
    failures: tuple[str, ...] = ()
    environment: str = ""
    held: tuple[str, ...] = ()
    facts: str = ""


@dataclass(frozen=True)
class CiRead:
    """The gate on a head; `unrelated` are failing checks that fail on the base's head too.

    `note` shows how they fail there; `problems`, when set, replace "CI check `name`
    failed" as the fixer's problems (the failures the base did not have).
    """

    gate: Gate
    unrelated: tuple[str, ...] = ()
    note: str = ""
    problems: tuple[str, ...] = ()


@dataclass(frozen=True)
class Rebased:
    """A rebase onto the base: clean (pushed when it moved), up to date, or conflicted.

    `stack` is where a stacked branch was put (None: the issue is not stacked).
    """

    outcome: Literal["clean", "up-to-date", "conflict"]
    head_sha: str
    conflicts: tuple[str, ...] = ()
    stack: StackMove | None = None


@dataclass(frozen=True)
class StackRead:
    """The prerequisite as the forge has it: merged (the one rule), its branch head, its PR."""

    merged: bool
    head: str | None
    pr: int | None = None


@dataclass(frozen=True)
class SyncFinished:
    """finish-sync's verdict; the pushed head when it passed, and the flows it leaves
    (`code_changed`: the branch still changes files against the base; SYNC-12)."""

    ok: bool
    head_sha: str
    findings: tuple[str, ...] = ()
    code_changed: bool = True
    wiki_ahead: bool = False


@dataclass(frozen=True)
class QueueRead:
    """The issues this one waits for in the merge order (empty: go)."""

    ahead: tuple[int, ...]


@dataclass(frozen=True)
class BehindRead:
    """Why the branch is behind, or None."""

    behind: Behind | None


@dataclass(frozen=True)
class MergeTried:
    """The merge: made (`sha` on the base), refused as behind, or refused for `reason`."""

    outcome: Literal["merged", "behind", "refused"]
    sha: str = ""
    reason: str = ""


@dataclass(frozen=True)
class HandedOver:
    """The PR is left for a person: `pr`, and what could not be asked of whom (`notes`).

    `merged` is set when a person had already merged it.
    """

    pr: int
    notes: tuple[str, ...] = ()
    merged: PersonMerged | None = None


@dataclass(frozen=True)
class WikiPublished:
    """Publishing the wiki: done, nothing to publish, or the commits no longer apply (`note`)."""

    outcome: Literal["published", "nothing", "conflict"]
    note: str = ""


MergeStageResult = (
    Verified
    | CiRead
    | Rebased
    | SyncFinished
    | QueueRead
    | BehindRead
    | MergeTried
    | HandedOver
    | StackRead
    | WikiPublished
)
