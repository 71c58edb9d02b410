"""GitHub's JSON for a check run (`check-run`), as the REST routes and the CI's webhook show it."""

from __future__ import annotations

import sqlite3
from typing import Any

from conveyor.emulator.repos.pull_shape import RepoView


def check_run_json(view: RepoView, run: sqlite3.Row) -> dict[str, Any]:
    """GitHub's `check-run`."""
    url = f"{view.api}/check-runs/{run['id']}"
    return {
        "id": run["id"],
        "head_sha": run["head_sha"],
        "node_id": run["node_id"],
        "external_id": run["external_id"] or "",
        "url": url,
        "html_url": f"{view.repo['html_url']}/runs/{run['id']}",
        "details_url": run["details_url"] or f"{view.repo['html_url']}/runs/{run['id']}",
        "status": run["status"],
        "conclusion": run["conclusion"],
        "started_at": run["started_at"],
        "completed_at": run["completed_at"],
        "output": {
            "title": run["title"],
            "summary": run["summary"],
            "text": run["text"],
            "annotations_count": 0,
            "annotations_url": f"{url}/annotations",
        },
        "name": run["name"],
        "check_suite": {"id": run["id"]},
        "app": None,
        "pull_requests": [],
    }
