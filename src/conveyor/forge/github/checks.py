"""Check run and commit status operations of the GitHub client."""

from __future__ import annotations

from typing import Any

from githubkit_schemas.latest.models import CheckRun as KitCheckRun
from githubkit_schemas.latest.models import ReposOwnerRepoCommitsRefCheckRunsGetResponse200, Status

from conveyor.forge.github.base import has_next_page
from conveyor.forge.github.convert import to_check_run, to_status
from conveyor.forge.github.paging import PER_PAGE, PagedOps
from conveyor.forge.types import CheckRun, CommitStatus


def _output(name: str, summary: str | None) -> dict[str, Any]:
    return {"output": {"title": name, "summary": summary}} if summary is not None else {}


class CheckOps(PagedOps):
    """What CI reported on a commit, and the check runs the pipeline reports itself."""

    def list_check_runs(self, sha: str) -> tuple[CheckRun, ...]:
        """Every check run reported on a commit (all pages)."""
        found: list[CheckRun] = []
        path = self._path("commits", sha, "check-runs")
        page = 0
        while True:
            page += 1
            response = self._run(
                f"list check runs of {sha[:12]}",
                None,
                lambda page=page: self._kit.request(  # type: ignore[misc]
                    "GET",
                    path,
                    params={"per_page": PER_PAGE, "page": page},
                    response_model=ReposOwnerRepoCommitsRefCheckRunsGetResponse200,
                ),
            )
            found.extend(to_check_run(run) for run in response.parsed_data.check_runs)
            if not has_next_page(response.raw_response):
                return tuple(found)

    def list_statuses(self, sha: str) -> tuple[CommitStatus, ...]:
        """Every commit status reported on a commit, newest first (all pages)."""
        statuses = self._kit.rest.repos.list_commit_statuses_for_ref
        found = self._pages(
            f"list statuses of {sha[:12]}",
            None,
            lambda page: statuses(self._owner, self._name, sha, per_page=PER_PAGE, page=page),
            Status,
        )
        return tuple(to_status(status) for status in found)

    def create_check_run(
        self,
        sha: str,
        name: str,
        status: str,
        conclusion: str | None = None,
        summary: str | None = None,
    ) -> CheckRun:
        """Report a check run on a commit."""
        body: dict[str, Any] = {"name": name, "head_sha": sha, "status": status}
        if conclusion is not None:
            body["conclusion"] = conclusion
        body.update(_output(name, summary))
        response = self._run(
            f"create check run {name}",
            None,
            lambda: self._kit.request(
                "POST", self._path("check-runs"), json=body, response_model=KitCheckRun
            ),
        )
        return to_check_run(response.parsed_data)

    def update_check_run(
        self,
        check_run_id: int,
        status: str,
        conclusion: str | None = None,
        summary: str | None = None,
    ) -> CheckRun:
        """Move a check run on (e.g. to completed with a conclusion)."""
        body: dict[str, Any] = {"status": status}
        if conclusion is not None:
            body["conclusion"] = conclusion
        if summary is not None:
            body["output"] = {"title": "summary", "summary": summary}
        response = self._run(
            f"update check run {check_run_id}",
            None,
            lambda: self._kit.request(
                "PATCH",
                self._path("check-runs", str(check_run_id)),
                json=body,
                response_model=KitCheckRun,
            ),
        )
        return to_check_run(response.parsed_data)
