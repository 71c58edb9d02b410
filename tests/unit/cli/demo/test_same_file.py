"""The demo's two issues on one line, whichever base each implementer begins from.

`#6 [same-b]` once began after `#5 [same-a]` had merged (the loop gives a slot when one
frees, so either timing happens) and its implementer wrote the whole file it was written
for: same-a's capitalisation was gone and same-b stopped at checks. Each implementer now
edits the line it finds; these tests play its file actions, as the scripted agent does.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from conveyor.agents.scripted.actions import Workspace, perform
from conveyor.cli.demo import changes
from conveyor.cli.demo.scenario import build, template_file

LABELS = "inventory/labels.py"
FILE_ACTIONS = ("write", "apply", "run")


def _checkout(root: Path, labels: str) -> Path:
    (root / "inventory").mkdir(parents=True)
    (root / LABELS).write_text(labels, encoding="utf-8")
    return root


def _implement(tag: str, checkout: Path) -> str:
    """Play the tag's implement session's file actions (not its commit or reply); the file."""
    entry = next(e for e in build()["sessions"] if (e["tag"], e["kind"]) == (tag, "implement"))
    workspace = Workspace(str(checkout), dict(os.environ), None, None)
    for turn in entry["turns"]:
        for action in turn["actions"]:
            if next(iter(action)) in FILE_ACTIONS:
                failed, out = perform(workspace, action)
                assert not failed, out
    return (checkout / LABELS).read_text(encoding="utf-8")


@pytest.mark.parametrize("first", ["same-a", "same-b"])
def test_an_implementer_begun_after_the_other_merged_keeps_both_changes(
    tmp_path: Path, first: str
) -> None:
    """Its branch holds the other's merged change: the file ends with both (no conflict to
    resolve, so nothing else would bring the first change back)."""
    second = "same-b" if first == "same-a" else "same-a"
    checkout = _checkout(tmp_path, template_file(LABELS))
    _implement(first, checkout)
    assert _implement(second, checkout) == changes.SAME_BOTH


@pytest.mark.parametrize(("tag", "alone"), [("same-a", changes.SAME_A), ("same-b", changes.SAME_B)])
def test_begun_together_each_changes_the_same_line_of_the_sample(
    tmp_path: Path, tag: str, alone: str
) -> None:
    """From the sample's file each writes its own version of the one line, so the second to
    merge conflicts and its resolver (which writes both) still has work to do."""
    checkout = _checkout(tmp_path, template_file(LABELS))
    assert _implement(tag, checkout) == alone


def _changes(action: dict[str, Any], path: str) -> bool:
    """Whether an action writes `path` or runs a command naming it."""
    return action.get("write", {}).get("path") == path or path in action.get("run", "")


def test_no_file_two_demo_issues_change_is_written_whole() -> None:
    """The class: a file two issues change is edited where it stands, never rewritten whole by
    an implementer or fixer (a resolver's write is the merge of both, made mid-rebase)."""
    actions = [
        (entry["tag"], entry["kind"], action)
        for entry in build()["sessions"]
        for turn in entry["turns"]
        for action in turn["actions"]
    ]
    whole = {a["write"]["path"] for _, kind, a in actions if "write" in a and kind != "resolver"}
    tags = {path: sorted({tag for tag, _, a in actions if _changes(a, path)}) for path in whole}
    assert {path: found for path, found in tags.items() if len(found) > 1} == {}
