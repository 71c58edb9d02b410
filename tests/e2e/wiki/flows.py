"""What the wiki flow tests share: a World with a wiki, and scenario entries that write pages."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conveyor.core.replies import SPEC_END
from conveyor.emulator.app.server import ForgeServer
from conveyor.testing.world import World
from tests.e2e.back.merge_helpers import FAST
from tests.e2e.helpers import STUB, TEST, reply, spec_answer

PAGE = "Stock-Levels.md"
PAGE_TEXT = "# Stock levels\n\nAn item is low below its reorder level.\n"
HOME = "Welcome to the wiki!\n\n- [[Stock Levels]]\n"
WIKI_SPEC = f"""## Behaviour
- The wiki has a Stock levels page, linked from Home.

## Out of scope
Code.

## Design
Only the wiki changes.

## Tests
None: only the wiki changes.

## Wiki updates
A new page, Stock levels, linked from Home.

## Assumptions and risks
None.

## Sources
The issue.
{SPEC_END}
"""


@pytest.fixture
def wiki_world(forge_server: ForgeServer, tmp_path: Path) -> World:
    """A World whose repository has a wiki (Home.md on master) and fast CI waits."""
    return World.create(forge_server, tmp_path / "world", config=FAST, wiki=True)


def page_actions(message: str = "Add the Stock levels page") -> list[dict[str, Any]]:
    """Write the new page and link it from Home, then commit in the wiki checkout."""
    return [
        {"write": {"path": f"wiki/{PAGE}", "content": PAGE_TEXT}},
        {"write": {"path": "wiki/Home.md", "content": HOME}},
        {"commit": {"message": message, "dir": "wiki"}},
    ]


def wiki_only_spec(tag: str) -> dict[str, Any]:
    """A spec writer whose wiki pages are the whole change (FLOW-10)."""
    answer = spec_answer(
        spec=WIKI_SPEC, interfaces=[], no_tests_reason="only the wiki changes", wiki_only=True
    )
    return {"tag": tag, "kind": "spec", "turns": [{"actions": page_actions()}, reply(answer)]}


def spec_with_page(tag: str) -> dict[str, Any]:
    """A spec writer that commits the stub, a failing test and the spec's wiki page."""
    code = [
        {"write": {"path": "inventory/total.py", "content": STUB}},
        {"write": {"path": "tests/test_total.py", "content": TEST}},
        {"commit": "Stub total() and its failing test"},
    ]
    actions = [*code, *page_actions("Document the stock total")]
    return {"tag": tag, "kind": "spec", "turns": [{"actions": actions}, reply(spec_answer())]}
