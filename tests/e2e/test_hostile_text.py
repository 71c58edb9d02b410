"""Control and bidi characters in an issue's title and a stop's reason never reach a terminal."""

from __future__ import annotations

import io
import re

import pytest
from rich.console import Console

from conveyor.cli.live.follow import LiveView
from conveyor.core.printable import BIDI_CONTROLS
from conveyor.testing.world import World
from tests.e2e.helpers import triage

pytestmark = pytest.mark.e2e

# A title that sets the terminal's title, rings the bell, mirrors a file name, cuts the
# line with a NUL and forges a line of its own; the triage agent quotes it in its reason.
HOSTILE = "Fix \x1b]0;owned\x07 the \u202egnp.exe\u202c bug\x00 now\r\n#99 merged fake"
# What rich writes itself on a terminal: colours, cursor moves, showing and hiding it.
_RICH_CODES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _safe(text: str) -> bool:
    """Whether `text` holds no control character but newlines, and no bidi control."""
    return not any(c in BIDI_CONTROLS or (ord(c) < 32 and c != "\n") for c in text)


@pytest.fixture
def rejected(world: World) -> int:
    """An issue with the hostile title, stopped at triage by a reason quoting it, ticked."""
    world.write_scenario([triage("hostile", "reject", reason=f"Will not do: {HOSTILE}")])
    issue = world.open_issue(f"{HOSTILE} [hostile]", "Body.")
    done = world.drive(issue.number, through="triage")
    assert done.returncode == 0, done.stdout + done.stderr
    ticked = world.run("tick")
    assert ticked.returncode == 0, ticked.stdout + ticked.stderr
    return issue.number


def test_status_shows_a_hostile_title_and_reason_escaped_on_lines_of_their_own(
    world: World, rejected: int
) -> None:
    """The list and `--issue` print the escapes; no control character, no forged line."""
    listed = world.run("status")
    one = world.run("status", "--issue", str(rejected))
    for shown in (listed, one):
        assert shown.returncode == 0, shown.stderr
        assert _safe(shown.stdout), repr(shown.stdout)
        assert r"\x1b]0;owned\x07 the \u202egnp.exe\u202c bug\x00 now" in shown.stdout
        assert not any(line.startswith("#99") for line in shown.stdout.splitlines())


def test_the_live_view_escapes_a_hostile_reason_on_its_panel_and_its_lines(
    world: World, rejected: int
) -> None:
    """The panel on a terminal (rich's own codes aside) and the plain lines carry no controls."""
    del rejected
    for terminal in (True, False):
        out = io.StringIO()
        console = Console(file=out, force_terminal=terminal, width=120, color_system="standard")
        view = LiveView(world.repo_home, console, backlog=50)
        view.start(interval=60)
        view.stop()
        drawn = _RICH_CODES.sub("", out.getvalue())
        assert _safe(drawn.replace("\r", "")), repr(drawn)
        assert r"\u202egnp.exe\u202c" in drawn
