"""Pull request operations of the GitHub client: find, open, edit, ready, close, merge."""

from __future__ import annotations

from typing import Literal

from githubkit.utils import UNSET
from githubkit_schemas.latest.models import PullRequest as KitPullRequest

from conveyor.forge.errors import DraftsRefused, NotMergeable, Validation
from conveyor.forge.github.base import ClientBase
from conveyor.forge.github.convert import merge_commit_of, to_pull
from conveyor.forge.types import MergeResult, PullRequest

# GitHub's 422 message (no `errors` list) where the plan has no drafts, lower-cased.
DRAFTS_REFUSED = "draft pull requests are not supported"
MARK_READY = """
mutation MarkReady($id: ID!) {
  markPullRequestReadyForReview(input: {pullRequestId: $id}) {
    pullRequest { id isDraft }
  }
}
"""
EDIT_AND_READY = """
mutation EditAndReady($id: ID!, $title: String!, $body: String!) {
  updatePullRequest(input: {pullRequestId: $id, title: $title, body: $body}) {
    pullRequest { id title body }
  }
  markPullRequestReadyForReview(input: {pullRequestId: $id}) {
    pullRequest { id isDraft }
  }
}
"""


class PullOps(ClientBase):
    """Pull requests as the implement, review and merge stages use them."""

    def _pull(self, data: KitPullRequest, raw: object) -> PullRequest:
        """The PR as the protocol has it; its GraphQL id is kept for `mark_pr_ready`."""
        pr = to_pull(data, merge_commit_of(raw))
        if pr.node_id:
            self._pr_nodes[pr.number] = pr.node_id
        return pr

    def find_pr(self, head_branch: str) -> PullRequest | None:
        """The PR (open or closed) whose head is `head_branch` here; an open one wins."""
        response = self._run(
            f"find PR of {head_branch}",
            None,
            lambda: self._kit.rest.pulls.list(
                self._owner,
                self._name,
                head=f"{self._owner}:{head_branch}",
                state="all",
                per_page=100,
            ),
        )
        # GitHub filters by head already; the check guards a forge that ignores it.
        candidates = [pr for pr in response.parsed_data if pr.head.ref == head_branch]
        if not candidates:
            return None
        best = max(candidates, key=lambda pr: (pr.state == "open", pr.number))
        return self.get_pr(best.number)

    def list_prs_into(self, base: str) -> tuple[int, ...]:
        """The open PRs based on the branch `base` (a stacked issue's is based on another's)."""
        response = self._run(
            f"list PRs into {base}",
            None,
            lambda: self._kit.rest.pulls.list(
                self._owner, self._name, base=base, state="open", per_page=100
            ),
        )
        return tuple(pr.number for pr in response.parsed_data if pr.base.ref == base)

    def create_draft_pr(self, head: str, base: str, title: str, body: str) -> PullRequest:
        """Open a draft PR from `head` into `base`; `DraftsRefused` where drafts do not exist."""
        try:
            return self._create(head, base, title, body, draft=True)
        except Validation as exc:
            if DRAFTS_REFUSED not in exc.message.lower():
                raise
            raise DraftsRefused(exc.operation, None, exc.message, exc.errors) from exc

    def create_pr(self, head: str, base: str, title: str, body: str) -> PullRequest:
        """Open a PR from `head` into `base`, ready for review."""
        return self._create(head, base, title, body, draft=False)

    def _create(self, head: str, base: str, title: str, body: str, *, draft: bool) -> PullRequest:
        response = self._run(
            f"create PR from {head}",
            None,
            lambda: self._kit.rest.pulls.create(
                self._owner, self._name, head=head, base=base, title=title, body=body, draft=draft
            ),
        )
        return self._pull(response.parsed_data, response.json())

    def get_pr(self, number: int) -> PullRequest:
        """One PR with its head SHA, draft, merged and mergeable state."""
        response = self._run(
            "get PR", number, lambda: self._kit.rest.pulls.get(self._owner, self._name, number)
        )
        return self._pull(response.parsed_data, response.json())

    def edit_pr(
        self,
        number: int,
        title: str | None = None,
        body: str | None = None,
        *,
        base: str | None = None,
    ) -> PullRequest:
        """Change a PR's title, body or base branch (None leaves it as it is)."""
        if title is None and body is None and base is None:
            return self.get_pr(number)
        response = self._run(
            "edit PR",
            number,
            lambda: self._kit.rest.pulls.update(
                self._owner,
                self._name,
                number,
                title=UNSET if title is None else title,
                body=UNSET if body is None else body,
                base=UNSET if base is None else base,
            ),
        )
        return self._pull(response.parsed_data, response.json())

    def mark_pr_ready(self, number: int, title: str | None = None, body: str | None = None) -> None:
        """Mark a draft PR ready for review through GraphQL (there is no REST call); with
        `title` and `body`, `updatePullRequest` sets them first in the same document (GitHub
        runs a document's mutations in order): one request, where REST's edit is another."""
        node_id = self._pr_nodes.get(number) or self.get_pr(number).node_id
        edit = title is not None and body is not None
        document = EDIT_AND_READY if edit else MARK_READY
        given = {"id": node_id} | ({"title": title, "body": body} if edit else {})
        data = self._run(
            "mark PR ready", number, lambda: self._kit.graphql.request(document, given)
        )
        result = data.get("markPullRequestReadyForReview") or {}
        pull = result.get("pullRequest") if isinstance(result, dict) else None
        if not isinstance(pull, dict) or pull.get("isDraft") is not False:
            raise Validation("mark PR ready", number, f"the forge answered {data!r}")
        edited = (data.get("updatePullRequest") or {}).get("pullRequest") if edit else None
        if edit and (not isinstance(edited, dict) or edited.get("title") != title):
            raise Validation("edit PR", number, f"the forge answered {data!r}")

    def close_pr(self, number: int) -> PullRequest:
        """Close a PR without merging."""
        return self._set_state(number, "closed", "close PR")

    def reopen_pr(self, number: int) -> PullRequest:
        """Reopen a closed, unmerged PR."""
        return self._set_state(number, "open", "reopen PR")

    def _set_state(
        self, number: int, state: Literal["open", "closed"], operation: str
    ) -> PullRequest:
        response = self._run(
            operation,
            number,
            lambda: self._kit.rest.pulls.update(self._owner, self._name, number, state=state),
        )
        return self._pull(response.parsed_data, response.json())

    def merge_pr(self, number: int, sha: str, title: str, message: str) -> MergeResult:
        """Squash-merge a PR if its head is still `sha`.

        Conflict (409) when the head moved; NotMergeable (405) when it conflicts
        with the base or the base's protection refuses it.
        """
        response = self._run(
            "merge PR",
            number,
            lambda: self._kit.rest.pulls.merge(
                self._owner,
                self._name,
                number,
                commit_title=title,
                commit_message=message,
                sha=sha,
                merge_method="squash",
            ),
        )
        result = response.parsed_data
        if not result.merged:
            raise NotMergeable("merge PR", number, result.message)
        return MergeResult(sha=result.sha, message=result.message)
