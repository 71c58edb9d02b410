"""Control and bidi characters anyone wrote show as escapes on the pages, in logical order."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page

from conveyor.core.printable import BIDI_CONTROLS
from conveyor.emulator.app.server import ForgeServer
from tests.contract.emulator_repos.conftest import GitWorld, make_git_world

pytestmark = pytest.mark.contract
TITLE = "Rename \u202eXYZ\u202c now\x07\x00"
# The x of each character of the heading's first text node, as the browser lays it out.
_XS = """h => {
  const node = h.firstChild, xs = [];
  for (let i = 0; i < node.length; i++) {
    const range = document.createRange();
    range.setStart(node, i); range.setEnd(node, i + 1);
    xs.push(range.getBoundingClientRect().left);
  }
  return xs;
}"""


def test_an_issue_heading_with_a_right_to_left_override_reads_in_logical_order(
    forge_server: ForgeServer, tmp_path: Path, page: Page
) -> None:
    """The override and the bell show as escapes and every letter stands right of the last."""
    gw: GitWorld = make_git_world(forge_server, tmp_path)
    with gw.client(gw.writer_token) as writer:
        made = writer.post(f"{gw.repo_path}/issues", json={"title": TITLE, "body": "\u202ebody"})
        assert made.status_code == 201, made.text
        number = made.json()["number"]
        writer.post(f"{gw.repo_path}/issues/{number}/comments", json={"body": "a\u2066b\x1bc"})
    page.goto(f"{gw.server.url}/{gw.slug}/issues/{number}")
    heading = page.locator("h1")
    assert heading.inner_text().startswith(r"Rename \u202eXYZ\u202c now\x07\x00")
    xs = heading.evaluate(_XS)
    assert xs == sorted(xs), xs
    html = page.content()
    assert not any(c in BIDI_CONTROLS for c in html)
    assert not any(ord(c) < 32 and c not in "\n\t" for c in html)
    assert r"\u2066b\x1bc" in page.locator("article").nth(1).inner_text()
    page.goto(f"{gw.server.url}/")
    assert page.get_by_role("link", name=r"Rename \u202eXYZ\u202c now\x07\x00").is_visible()


def test_the_json_api_still_answers_the_title_as_it_was_written(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """Escaping is for pages only: the REST answer keeps every character."""
    gw = make_git_world(forge_server, tmp_path)
    with gw.client(gw.writer_token) as writer:
        number = writer.post(f"{gw.repo_path}/issues", json={"title": TITLE}).json()["number"]
        got = writer.get(f"{gw.repo_path}/issues/{number}")
    assert isinstance(got, httpx.Response)
    assert got.json()["title"] == TITLE
