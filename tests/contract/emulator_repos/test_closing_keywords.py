"""Which issue numbers a PR body closes on merge, as GitHub reads its keywords."""

from __future__ import annotations

import pytest

from conveyor.emulator.model.pull_rows import closing_numbers


@pytest.mark.parametrize(
    ("body", "numbers"),
    [
        ("Closes #3", [3]),
        ("fixes #4 and resolves #5, also Fixed: #6", [4, 5, 6]),
        ("CLOSE #7\nclosed #7", [7]),
        ("Refs #8; see #9", []),
        ("disclosed #10 and prefixes #11", []),
        ("", []),
    ],
)
def test_closing_keywords_name_the_issues_a_merge_closes(body: str, numbers: list[int]) -> None:
    """`close`, `fix`, `resolve` (any tense, any case, optional colon) before `#N`."""
    assert closing_numbers(body) == numbers
