"""The writers' overlap rule: literal prefixes decide, and doubt counts as overlap (ORC-4)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conveyor.core.paths import overlaps as exact_overlaps
from conveyor.orchestrator.overlap import compile_globs, overlaps

OVERLAPPING = {
    "the reference's example, src/*.ts and src/*.md": (("src/*.ts",), ("src/*.md",)),
    "a file inside a folder glob": (("src/**",), ("src/app/x.py",)),
    "a literal folder and a file in it": (("src",), ("src/x.py",)),
    "a leading ./ is ignored": (("./src/a.py",), ("src/a.py",)),
    "a glob starting with a wildcard is everywhere": (("**/*.py",), ("docs/a.md",)),
    "no paths at all is the whole repository": ((), ("docs/a.md",)),
    "a blank glob is the whole repository": (("  ",), ("docs/a.md",)),
}

APART = {
    "different folders": (("docs/**",), ("src/**",)),
    "two different literal files": (("src/a.py", "src/b.py"), ("src/c.py",)),
    "a file and a sibling with a longer name": (("src/a",), ("src/ab",)),
    "different literal prefixes before the wildcard": (("src/app_*",), ("src/lib_*",)),
}


@pytest.mark.parametrize(("a", "b"), OVERLAPPING.values(), ids=OVERLAPPING.keys())
def test_globs_that_may_share_a_file_overlap(a: tuple[str, ...], b: tuple[str, ...]) -> None:
    """Each listed pair overlaps, in both directions."""
    assert overlaps(compile_globs(a), compile_globs(b))
    assert overlaps(compile_globs(b), compile_globs(a))


@pytest.mark.parametrize(("a", "b"), APART.values(), ids=APART.keys())
def test_globs_whose_literal_prefixes_part_do_not_overlap(
    a: tuple[str, ...], b: tuple[str, ...]
) -> None:
    """Each listed pair is apart, in both directions."""
    assert not overlaps(compile_globs(a), compile_globs(b))
    assert not overlaps(compile_globs(b), compile_globs(a))


SEGMENTS = st.sampled_from(["src", "docs", "a", "ab", "*", "**", "*.py", "x.py", "test_*"])
GLOBS = st.lists(SEGMENTS, min_size=1, max_size=3).map("/".join)


@given(st.lists(GLOBS, max_size=3), st.lists(GLOBS, max_size=3))
def test_the_prefix_rule_never_misses_an_overlap_the_exact_rule_finds(
    a: list[str], b: list[str]
) -> None:
    """Erring towards overlap: whenever core.paths finds two sets can meet, so does this rule."""
    if exact_overlaps(a, b):
        assert overlaps(compile_globs(tuple(a)), compile_globs(tuple(b)))
