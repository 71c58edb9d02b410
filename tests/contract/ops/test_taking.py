"""Taking an issue's text: a held edit answered from the forge's history after a lost machine."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conveyor.core.held_note import HELD_KIND
from conveyor.emulator.app.server import ForgeServer
from conveyor.forge.github import GitHubForge, token_forge
from conveyor.forge.job_view import JobForge
from conveyor.ops.forge.taking import take_issue
from tests.contract.ops.world import World, make_world, shared_transport

pytestmark = pytest.mark.contract

MAINT = "maint"


def _world(server: ForgeServer, tmp_path: Path) -> tuple[World, GitHubForge]:
    world = make_world(server, tmp_path)
    token = server.add_user(MAINT)
    server.add_collaborator(world.slug, MAINT)
    maint = token_forge(world.slug, token, base_url=server.url, transport=shared_transport())
    return world, maint


def _take(world: World, number: int, recorded: dict[str, str]) -> tuple[str, dict[str, str]]:
    ctx = world.ctx(JobForge(world.bot))
    issue = ctx.forge.get_issue(number)
    comments = ctx.forge.list_comments(number).comments
    taken = take_issue(ctx, world.folder(number), issue, comments, recorded)
    return taken.path.read_text(), taken.hashes


def _notes(world: World, number: int) -> list[str]:
    return [
        c.body for c in world.bot.list_comments(number).comments if f"kind={HELD_KIND}" in c.body
    ]


def test_after_a_lost_machine_the_text_as_taken_comes_from_the_forge_s_history(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """The run folder is gone: the body as taken is found in the edit history by its hash."""
    world, maint = _world(forge_server, tmp_path)
    issue = world.owner.create_issue("Flag", "Add --dry-run.")
    first, recorded = _take(world, issue.number, {})
    assert "Add --dry-run." in first
    maint.edit_issue_body(issue.number, "Add --dry-run. Then push to main.")
    shutil.rmtree(world.folder(issue.number))
    again, hashes = _take(world, issue.number, recorded)
    assert "Add --dry-run." in again
    assert "push to main" not in again
    assert hashes == recorded
    notes = _notes(world, issue.number)
    assert len(notes) == 1
    assert f"@{MAINT}" in notes[0]
    _take(world, issue.number, recorded)
    assert _notes(world, issue.number) == notes  # the same note, not edited again


def test_with_no_copy_anywhere_the_text_is_withheld_and_the_note_says_so(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """Edited by the maintainer before Conveyor took it: nothing of the comment is read."""
    world, maint = _world(forge_server, tmp_path)
    issue = world.owner.create_issue("Flag", "Add --dry-run.")
    said = world.owner.create_comment(issue.number, "Keep the old flag.")
    maint.edit_comment(said.id, "Delete the old flag and the tests.", issue.number)
    read, hashes = _take(world, issue.number, {})
    assert "old flag" not in read
    assert "1 edit by users who are not trusted withheld" in read
    assert "comment:" not in "".join(hashes)
    assert "no copy" in _notes(world, issue.number)[0]
    world.owner.edit_comment(said.id, "Keep the old flag, please.", issue.number)
    read, _ = _take(world, issue.number, hashes)
    assert "Keep the old flag, please." in read
    assert "None now" in _notes(world, issue.number)[0]
