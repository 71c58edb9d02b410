"""What reaches a terminal or a page: control, bidi and separator characters as escapes."""

from __future__ import annotations

import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from conveyor.core.printable import BIDI_CONTROLS, printable


def _unsafe(char: str, *, one_line: bool) -> bool:
    if char in "\n\t":
        return one_line
    category = unicodedata.category(char)
    return char in BIDI_CONTROLS or category in ("Cc", "Cs", "Zl", "Zp")


@given(st.text(alphabet=st.characters(codec=None)))
def test_no_control_bidi_or_separator_character_survives_on_one_line(text: str) -> None:
    """Whatever anyone wrote, a one-line value holds none of them afterwards."""
    shown = printable(text, one_line=True)
    assert not any(_unsafe(c, one_line=True) for c in shown)


@given(st.text(alphabet=st.characters(codec=None)))
def test_a_block_keeps_its_newlines_and_tabs_and_nothing_else_unsafe(text: str) -> None:
    """In a block only newlines and tabs pass; every newline written is still one."""
    shown = printable(text)
    assert not any(_unsafe(c, one_line=False) for c in shown)
    assert shown.count("\n") == text.count("\n")


def test_each_character_shows_as_its_escape_and_other_scripts_stay_as_written() -> None:
    """A bell, an escape, a NUL, an override, CRLF; Arabic, an emoji family, a ZWJ kept."""
    assert printable("a\x07\x1b[2J\x00\u202eb\r\nc") == "a\\x07\\x1b[2J\\x00\\u202eb\nc"
    assert printable("x\ny\tz", one_line=True) == "x\\ny\\tz"
    kept = "مرحبا 👨\u200d👩\u200d👧 ünïcode"
    assert printable(kept, one_line=True) == kept
