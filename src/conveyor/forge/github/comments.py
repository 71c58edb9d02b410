"""Comment and label operations of the GitHub client."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from githubkit.response import Response
from githubkit_schemas.latest.models import IssueComment, Label

from conveyor.forge.errors import NotFound, Validation
from conveyor.forge.github.base import has_next_page, items_of
from conveyor.forge.github.convert import to_comment
from conveyor.forge.github.paging import PER_PAGE, PagedOps
from conveyor.forge.types import Comment, CommentPage, LabelSpec


class CommentOps(PagedOps):
    """Comments (conditional list, create, edit) and labels (ensure, add, remove)."""

    def list_comments(self, number: int, etag: str | None = None) -> CommentPage:
        """All comments of an issue or PR, oldest first; conditional on `etag`.

        New comments land on the last page, so page 1's ETag only stands for
        the whole list when there is one page (up to 100 comments). For longer
        threads the page carries no ETag and the next read is a full one.
        """
        comments = self._kit.rest.issues

        def call(page: int, headers: dict[str, str] | None) -> Response[Any, Any]:
            return comments.list_comments(
                self._owner, self._name, number, per_page=PER_PAGE, page=page, headers=headers
            )

        listed = self._pages_since("list comments", number, call, IssueComment, etag)
        if listed is None:
            return CommentPage(comments=(), etag=etag, not_modified=True)
        found, first = listed
        etag_out = None if has_next_page(first.raw_response) else first.headers.get("etag")
        return CommentPage(
            comments=tuple(to_comment(c) for c in found), etag=etag_out, not_modified=False
        )

    def create_comment(self, number: int, body: str) -> Comment:
        """Post a comment on an issue or PR."""
        response = self._run(
            "create comment",
            number,
            lambda: self._kit.rest.issues.create_comment(
                self._owner, self._name, number, body=body
            ),
        )
        return to_comment(response.parsed_data)

    def edit_comment(self, comment_id: int, body: str, number: int | None = None) -> Comment:
        """Edit a comment in place (its id is kept). `number` is for error messages."""
        response = self._run(
            f"edit comment {comment_id}",
            number,
            lambda: self._kit.rest.issues.update_comment(
                self._owner, self._name, comment_id, body=body
            ),
        )
        return to_comment(response.parsed_data)

    def label_names(self) -> set[str]:
        """The repository's label names, lower case, read page by page."""
        listed = self._pages(
            "list labels",
            None,
            lambda page: self._kit.rest.issues.list_labels_for_repo(
                self._owner, self._name, per_page=PER_PAGE, page=page
            ),
            Label,
        )
        return {label.name.lower() for label in listed}

    def ensure_labels(self, labels: Sequence[LabelSpec]) -> None:
        """Create the labels that do not exist yet (existing ones are left alone).

        One label is created straight away (an existing one answers `already_exists`):
        one request, where listing first costs one more when it is missing.
        """
        existing = self.label_names() if len(labels) > 1 else set()
        for spec in labels:
            if spec.name.lower() in existing:
                continue
            try:
                self._run(
                    f"create label {spec.name}",
                    None,
                    lambda spec=spec: self._kit.rest.issues.create_label(  # type: ignore[misc]
                        self._owner,
                        self._name,
                        name=spec.name,
                        color=spec.color.removeprefix("#"),
                        description=spec.description,
                    ),
                )
            except Validation as exc:
                # It exists: created before (one label is not listed first) or by another
                # process between our list and our create.
                if not any("already_exists" in line for line in exc.errors):
                    raise

    def add_labels(self, number: int, names: Sequence[str]) -> tuple[str, ...]:
        """Add labels to an issue or PR; returns its labels afterwards."""
        response = self._run(
            "add labels",
            number,
            lambda: self._kit.rest.issues.add_labels(
                self._owner, self._name, number, labels=list(names)
            ),
        )
        return tuple(label.name for label in items_of(response, Label))

    def remove_label(self, number: int, name: str) -> None:
        """Remove a label from an issue or PR; an absent label is not an error."""
        path = self._path("issues", str(number), "labels", name)
        try:
            self._run(f"remove label {name}", number, lambda: self._kit.request("DELETE", path))
        except NotFound:
            return
