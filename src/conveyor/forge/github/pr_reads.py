"""What a review of a person's PR reads through the GitHub client: the open PRs
(conditionally), a PR's changed files, and its label and review-request events (who asked
for the review)."""

from __future__ import annotations

from datetime import datetime

from githubkit.utils import UNSET
from githubkit_schemas.latest.models import (
    DiffEntry,
    LabeledIssueEvent,
    PullRequestSimple,
    UnlabeledIssueEvent,
)

from conveyor.core.review_request import RequestAction, RequestEvent
from conveyor.forge.github.convert import login_of
from conveyor.forge.github.paging import PagedOps
from conveyor.forge.pr_types import LabelEvent, OpenPull, PullFile, PullPage

MAX_FILE_PAGES = 30  # GitHub lists at most 3000 files, 100 a page
REQUEST_ACTIONS: dict[object, RequestAction] = {
    "review_requested": "requested",
    "review_request_removed": "removed",
}


def to_open_pull(pr: PullRequestSimple) -> OpenPull:
    """An open PR as the review trigger reads it."""
    head_repo = pr.head.repo
    return OpenPull(
        number=pr.number,
        title=pr.title,
        body=pr.body or "",
        author=login_of(pr.user),
        head_ref=pr.head.ref,
        head_sha=pr.head.sha,
        head_repo=None if head_repo is None else head_repo.full_name,
        base_ref=pr.base.ref,
        draft=pr.draft is True,
        labels=tuple(label.name for label in pr.labels),
        created_at=pr.created_at,
        updated_at=pr.updated_at,
        html_url=pr.html_url,
        requested=tuple(login_of(u) for u in pr.requested_reviewers or ()),
    )


def to_pull_file(entry: DiffEntry) -> PullFile:
    """One changed file of a PR."""
    patch, old = entry.patch, entry.previous_filename
    return PullFile(
        filename=entry.filename,
        status=entry.status,
        additions=entry.additions,
        deletions=entry.deletions,
        patch=None if patch is UNSET else patch,
        previous_filename=None if old is UNSET else old,
    )


class PrReadOps(PagedOps):
    """The reads of a review of a person's PR."""

    def list_open_prs(self, etag: str | None = None) -> PullPage:
        """Open PRs, most recently updated first; conditional on `etag` (a 304 is free)."""
        listed = self._open_since(
            "list open PRs", self._kit.rest.pulls.list, PullRequestSimple, etag
        )
        if listed is None:
            return PullPage(pulls=(), etag=etag, not_modified=True)
        found, first = listed
        return PullPage(tuple(to_open_pull(p) for p in found), first.headers.get("etag"), False)

    def list_pr_files(self, number: int) -> tuple[PullFile, ...]:
        """The files PR `number` changes (GitHub lists at most 3000)."""
        found = self._every(
            "list PR files",
            number,
            self._kit.rest.pulls.list_files,
            DiffEntry,
            limit=MAX_FILE_PAGES,
        )
        return tuple(to_pull_file(entry) for entry in found)

    def _issue_events(self, number: int) -> list[object]:
        return self._every("list issue events", number, self._kit.rest.issues.list_events, object)

    def list_review_requests(self, number: int) -> tuple[RequestEvent, ...]:
        """Who requested and withdrew reviews of PR `number` from whom, oldest first."""
        found: list[RequestEvent] = []
        for event in self._issue_events(number):
            kind = getattr(event, "event", None)
            if kind not in REQUEST_ACTIONS:
                continue
            reviewer = getattr(event, "requested_reviewer", None)
            login = "" if reviewer is None or reviewer is UNSET else login_of(reviewer)
            found.append(
                RequestEvent(
                    REQUEST_ACTIONS[kind], login, login_of(getattr(event, "actor", None)),
                    int(getattr(event, "id", 0)), _when(event),
                )
            )  # fmt: skip
        return tuple(found)

    def list_label_events(self, number: int) -> tuple[LabelEvent, ...]:
        """Who added and removed the labels of issue or PR `number`, oldest first."""
        events: list[LabelEvent] = []
        for event in self._issue_events(number):
            if isinstance(event, LabeledIssueEvent):
                events.append(
                    LabelEvent("labeled", event.label.name, login_of(event.actor), _when(event))
                )
            elif isinstance(event, UnlabeledIssueEvent):
                events.append(
                    LabelEvent("unlabeled", event.label.name, login_of(event.actor), _when(event))
                )
        return tuple(events)


def _when(event: object) -> datetime:
    """The event's time (githubkit leaves `created_at` a string)."""
    return datetime.fromisoformat(str(getattr(event, "created_at", "")).replace("Z", "+00:00"))
