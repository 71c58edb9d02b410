"""The index and a PR's page list PRs with their checks, escaping what people wrote."""

from __future__ import annotations

import httpx
import pytest

from conveyor.testing import http
from tests.contract.emulator_repos.conftest import GitWorld, open_pr

pytestmark = pytest.mark.contract


def test_the_page_shows_a_pr_with_its_check_and_escapes_its_title(
    gw: GitWorld, writer: httpx.Client
) -> None:
    """A hostile title is shown as text; the head's check run is listed with its result."""
    head = gw.push_branch("feature", {"n.txt": "n\n"}, "New")
    pr = open_pr(writer, gw, "feature", title="<script>alert(1)</script>")
    writer.post(
        f"{gw.repo_path}/check-runs",
        json={"name": "lint", "head_sha": head, "conclusion": "success"},
    )
    index = http.get(f"{gw.server.url}/").text
    own = http.get(pr["html_url"]).text
    for page in (index, own):
        assert "<script>alert(1)</script>" not in page
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "lint: success" in index
    assert ">lint<" in own
    assert "success" in own
