"""The spec's text rules: the end marker, Behaviour items and interface coverage."""

from __future__ import annotations

from conveyor.core.replies import SPEC_END, Interface
from conveyor.stages.spec_text import (
    behaviour_items,
    coverage_gaps,
    has_end_marker,
    lists_wiki_updates,
    spec_findings,
    strip_end_marker,
    wiki_findings,
)
from tests.unit.stages.factory import INTERFACES, SPEC_BODY, spec_reply


def test_the_end_marker_must_be_the_last_line() -> None:
    """SPEC-38: the marker counts only as the final non-empty line."""
    assert has_end_marker(SPEC_BODY)
    assert not has_end_marker(SPEC_END + "\n## Sources\n")
    assert not has_end_marker("")


def test_the_marker_is_stripped_before_saving() -> None:
    """SPEC-39: what is saved and posted has no marker."""
    assert SPEC_END not in strip_end_marker(SPEC_BODY)


def test_behaviour_items_fold_their_sub_bullets() -> None:
    """SPEC-63: each top-level item with its sub-bullets folded in."""
    items = behaviour_items(SPEC_BODY)
    assert [line for line, _ in items] == [
        "`total()` counts every item.",
        "`total()` of an empty stock is 0.",
    ]
    assert items[1][1] == "`total()` of an empty stock is 0. even after removals"


def test_an_item_no_interface_names_is_a_gap_named_by_number() -> None:
    """SPEC-63, SPEC-93: coverage ignores markdown and whitespace, and names each gap."""
    partial = [INTERFACES[0].model_copy(update={"behaviours": ["total() counts  every item."]})]
    gaps = coverage_gaps(SPEC_BODY, partial)
    assert len(gaps) == 1
    assert gaps[0].startswith("Behaviour item 2 ")


def test_empty_interfaces_leave_every_item_uncovered() -> None:
    """SPEC-63: no interfaces, no coverage."""
    assert len(coverage_gaps(SPEC_BODY, list[Interface]())) == 2


def test_a_ready_reply_needs_interfaces_unless_no_tests_reason() -> None:
    """SPEC-36, SPEC-62."""
    assert spec_findings(spec_reply(interfaces=[]), depth=0)
    assert not spec_findings(spec_reply(interfaces=[], no_tests_reason="docs only"), depth=0)
    assert not spec_findings(spec_reply(), depth=0)


def test_a_handoff_reply_passes_the_quick_checks() -> None:
    """SPEC-94: a handoff is read as a handoff whatever its other fields."""
    assert not spec_findings(spec_reply(spec="", status="handoff"), depth=0)


def test_the_wiki_updates_section_names_updates_unless_it_says_none() -> None:
    """`None.`, `n/a` or an empty section list nothing; a sentence lists an update."""
    for body in ("None.", "n/a", "*None*", "", "No wiki updates."):
        assert not lists_wiki_updates(f"## Wiki updates\n{body}\n\n## Sources\nx\n"), body
    assert lists_wiki_updates("## Wiki updates\nA new page, Stock levels.\n\n## Sources\nx\n")


def test_listed_wiki_updates_need_committed_pages_and_wiki_only_needs_a_wiki() -> None:
    """SPEC-116, SPEC-119: what the commit check says about the spec's wiki pages."""
    listed = {"wiki_only": False, "lists_updates": True}
    assert wiki_findings(has_wiki=True, wiki_changed=False, **listed)[0].startswith("Wiki updates:")
    assert wiki_findings(has_wiki=True, wiki_changed=True, **listed) == ()
    assert wiki_findings(has_wiki=False, wiki_changed=False, **listed) == ()
    only = {"wiki_only": True, "lists_updates": True}
    assert wiki_findings(has_wiki=False, wiki_changed=False, **only)[0].startswith("wiki_only:")
    assert wiki_findings(has_wiki=True, wiki_changed=False, **only)[0].startswith(
        "nothing-to-build:"
    )
    assert wiki_findings(has_wiki=True, wiki_changed=True, **only) == ()


def test_a_wiki_only_reply_must_say_why_no_test_is_written() -> None:
    """SPEC-115: wiki_only goes with no_tests_reason."""
    found = spec_findings(spec_reply(wiki_only=True), 0)
    assert any(f.startswith("no_tests_reason:") for f in found)
    fine = spec_reply(wiki_only=True, no_tests_reason="only the wiki", interfaces=[])
    assert spec_findings(fine, 0) == ()
