"""What a review of a person's PR reads through the GitHub client: the open PRs
(conditionally), a PR's changed files, and its label events (who asked for the review)."""

from __future__ import annotations

from datetime import datetime

from githubkit.utils import UNSET
from githubkit_schemas.latest.models import (
    DiffEntry,
    LabeledIssueEvent,
    PullRequestSimple,
    UnlabeledIssueEvent,
)

from conveyor.forge.github.convert import login_of
from conveyor.forge.github.paging import PagedOps
from conveyor.forge.pr_types import LabelEvent, OpenPull, PullFile, PullPage

MAX_FILE_PAGES = 30  # GitHub lists at most 3000 files, 100 a page


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

    def list_label_events(self, number: int) -> tuple[LabelEvent, ...]:
        """Who added and removed the labels of issue or PR `number`, oldest first."""
        found = self._every("list issue events", number, self._kit.rest.issues.list_events, object)
        events: list[LabelEvent] = []
        for event in found:
            if isinstance(event, LabeledIssueEvent):
                events.append(
                    LabelEvent("labeled", event.label.name, login_of(event.actor), _when(event))
                )
            elif isinstance(event, UnlabeledIssueEvent):
                events.append(
                    LabelEvent("unlabeled", event.label.name, login_of(event.actor), _when(event))
                )
        return tuple(events)


def _when(event: LabeledIssueEvent | UnlabeledIssueEvent) -> datetime:
    """The event's time (githubkit leaves `created_at` a string)."""
    return datetime.fromisoformat(event.created_at.replace("Z", "+00:00"))
