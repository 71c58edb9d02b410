"""Path globs: matching, classifying changed paths, and overlap for the scheduler."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conveyor.core.config import Paths
from conveyor.core.paths import classify, matches, overlaps

MATCHING = {
    "a file under a folder glob": ("tests/unit/test_a.py", "tests/**"),
    "the folder itself": ("tests", "tests/**"),
    "a root file for a leading **": ("test_a.py", "**/test_*.py"),
    "a deep file for a leading **": ("pkg/sub/test_a.py", "**/test_*.py"),
    "** in the middle spanning no folder": ("a/b", "a/**/b"),
    "** in the middle spanning folders": ("a/x/y/b", "a/**/b"),
    "a star within one name": ("LICENSE.md", "LICENSE*"),
    "a question mark": ("v1.txt", "v?.txt"),
    "a character class": ("src/a.py", "src/[abc].py"),
    "a negated class": ("src/d.py", "src/[!abc].py"),
    "a leading ./ on the path": ("./docs/x.md", "docs/**"),
    "dots are literal": ("a.b", "a.b"),
    "a trailing slash names a folder": ("docs/api/x.md", "docs/"),
}

NOT_MATCHING = {
    "a star does not cross folders": ("docs/x.md", "*.md"),
    "a root-only name in a folder": ("docs/LICENSE", "LICENSE*"),
    "a sibling folder with a common prefix": ("tests2/a.py", "tests/**"),
    "a dot is not any character": ("axb", "a.b"),
    "a question mark is not a slash": ("a/b", "a?b"),
    "a negated class excludes its members": ("src/a.py", "src/[!abc].py"),
}


@pytest.mark.parametrize(("path", "glob"), MATCHING.values(), ids=MATCHING.keys())
def test_globs_match_the_paths_they_describe(path: str, glob: str) -> None:
    """`**` spans folders, `*` and `?` stay within a name."""
    assert matches(path, glob)


@pytest.mark.parametrize(("path", "glob"), NOT_MATCHING.values(), ids=NOT_MATCHING.keys())
def test_globs_do_not_match_other_paths(path: str, glob: str) -> None:
    """A glob never matches across a folder boundary it does not name."""
    assert not matches(path, glob)


def test_classify_splits_changed_paths_into_tests_non_code_and_code() -> None:
    """With the default globs, tests win over non-code, and the rest is code."""
    changed = ["src/app.py", "tests/test_app.py", "docs/guide.md", "README.md", "tests/notes.md"]
    kinds = classify(changed, Paths())
    assert kinds.tests == {"tests/test_app.py", "tests/notes.md"}
    assert kinds.non_code == {"docs/guide.md", "README.md"}
    assert kinds.code == {"src/app.py"}


def test_classify_uses_the_configured_globs() -> None:
    """Custom glob lists decide, not the defaults."""
    paths = Paths(tests=("spec/**",), non_code=("*.cfg",))
    kinds = classify(["spec/a.rb", "setup.cfg", "tests/test_a.py"], paths)
    assert kinds.tests == {"spec/a.rb"}
    assert kinds.non_code == {"setup.cfg"}
    assert kinds.code == {"tests/test_a.py"}


OVERLAP = {
    "the same folder": (["src/**"], ["src/**"]),
    "a file inside a folder glob": (["src/**"], ["src/app.py"]),
    "any python file and a named one": (["**/*.py"], ["pkg/mod.py"]),
    "an empty set is the whole repository": ([], ["docs/a.md"]),
    "two wildcards that can meet": (["src/test_*"], ["src/*_x.py"]),
    "a deep glob and a shallow one": (["a/**/z.py"], ["a/b/*.py"]),
}

APART = {
    "different folders": (["docs/**"], ["src/**"]),
    "different extensions": (["src/*.py"], ["src/*.md"]),
    "a root star and a nested file": (["*.md"], ["docs/readme.md"]),
    "different literal files": (["a.py", "b.py"], ["c.py"]),
    "different prefixes": (["src/app_*"], ["src/lib_*"]),
}


@pytest.mark.parametrize(("a", "b"), OVERLAP.values(), ids=OVERLAP.keys())
def test_overlapping_glob_sets_are_reported(a: list[str], b: list[str]) -> None:
    """Two writers whose globs can meet overlap."""
    assert overlaps(a, b)
    assert overlaps(b, a)


@pytest.mark.parametrize(("a", "b"), APART.values(), ids=APART.keys())
def test_disjoint_glob_sets_do_not_overlap(a: list[str], b: list[str]) -> None:
    """Globs that no path can match both are kept apart."""
    assert not overlaps(a, b)


NAMES = st.text("abc._", min_size=1, max_size=4).filter(lambda s: s not in (".", ".."))
REPO_PATHS = st.lists(NAMES, min_size=1, max_size=4).map("/".join)


@st.composite
def generalised(draw: st.DrawFn, path: str) -> str:
    """A glob matching `path`: names widened with `*` or `?`, runs of names folded into `**`."""
    out: list[str] = []
    parts = path.split("/")
    i = 0
    while i < len(parts):
        choice = draw(st.sampled_from(["keep", "star", "prefix", "question", "globstar"]))
        name = parts[i]
        if choice == "globstar":
            run = draw(st.integers(0, len(parts) - i))
            out.append("**")
            i += run
            continue
        if choice == "star":
            out.append("*")
        elif choice == "prefix":
            out.append(name[: draw(st.integers(0, len(name)))] + "*")
        elif choice == "question":
            out.append("?" + name[1:])
        else:
            out.append(name)
        i += 1
    return "/".join(out)


@given(st.data(), REPO_PATHS)
def test_two_globs_matching_one_path_always_overlap(data: st.DataObject, path: str) -> None:
    """Soundness: whenever some path matches a glob of each set, the sets overlap."""
    a = data.draw(generalised(path))
    b = data.draw(generalised(path))
    assert matches(path, a), (path, a)
    assert matches(path, b), (path, b)
    assert overlaps([a], [b])


@given(st.lists(REPO_PATHS, max_size=3), st.lists(REPO_PATHS, max_size=3))
def test_overlap_is_symmetric(a: list[str], b: list[str]) -> None:
    """Whether A overlaps B never depends on the order they are asked in."""
    assert overlaps(a, b) == overlaps(b, a)


@given(REPO_PATHS, REPO_PATHS)
def test_two_literal_paths_overlap_exactly_when_equal(a: str, b: str) -> None:
    """Without wildcards the answer is exact: the same file or not."""
    assert overlaps([a], [b]) == (a == b)
