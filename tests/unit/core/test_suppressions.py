"""New suppressions in a diff, per ecosystem, and the rules that allow one."""

from __future__ import annotations

import pytest

from conveyor.core.check_facts import CheckFacts, defined_tests, render
from conveyor.core.suppressions import SuppressionRules, added_lines, allowed_by, found_in


def _diff(path: str, *lines: str, start: int = 1) -> str:
    body = "".join(f"+{line}\n" for line in lines)
    head = f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n"
    return f"{head}@@ -0,0 +{start},{len(lines)} @@\n{body}"


def _markers(path: str, *lines: str) -> list[str]:
    return [s.marker for s in found_in(_diff(path, *lines), lambda _p: "", lambda _p: None)]


@pytest.mark.parametrize(
    ("path", "line", "marker"),
    [
        ("a.py", "x = 1  # noqa", "noqa"),
        ("a.py", "x = 1  # noqa: E501, F401", "noqa: E501, F401"),
        ("a.py", "# ruff: noqa", "ruff: noqa"),
        ("a.py", "# mypy: ignore-errors", "mypy: ignore-errors"),
        ("a.py", "y = f()  # type: ignore[attr-defined]", "type: ignore[attr-defined]"),
        ("a.py", "if x:  # pragma: no cover", "pragma: no cover"),
        ("a.py", "# pylint: disable=too-many-args", "pylint: disable=too-many-args"),
        ("a.js", "// eslint-disable-next-line no-console", "eslint-disable no-console"),
        ("a.js", "/* eslint-disable */", "eslint-disable"),
        ("a.ts", "// @ts-expect-error", "@ts-expect-error"),
        ("a.ts", "it.only('adds', () => {});", "test focus: only"),
        ("a.go", "x := f() //nolint:errcheck", "nolint:errcheck"),
        ("a.rs", "#[allow(dead_code)]", "allow(dead_code)"),
        ("A.java", '@SuppressWarnings("unchecked")', '@SuppressWarnings("unchecked")'),
        ("a.cc", "int x; // NOLINT(bugprone-foo)", "NOLINT(bugprone-foo)"),
    ],
)
def test_each_ecosystems_markers_are_found_on_added_lines(
    path: str, line: str, marker: str
) -> None:
    """The marker as the checks comment shows it."""
    assert marker in _markers(path, line)


def test_a_line_with_two_suppressions_counts_both_and_a_marker_once() -> None:
    """`# type: ignore  # noqa` is two; `# ruff: noqa` is not also a `noqa`."""
    assert _markers("a.py", "x = f()  # type: ignore  # noqa", "# ruff: noqa") == [
        "noqa",
        "type: ignore",
        "ruff: noqa",
    ]


def test_a_skip_counts_on_a_test_the_base_had_and_not_on_a_new_one() -> None:
    """Decorating `test_old` (in the base) counts; marking a brand-new test does not."""
    head = (
        "import pytest\n\n\n@pytest.mark.skip(reason='later')\ndef test_old():\n    pass\n\n\n"
        "@pytest.mark.xfail\ndef test_new():\n    pass\n"
    )
    base = "import pytest\n\n\ndef test_old():\n    pass\n"
    diff = _diff("tests/test_a.py", "@pytest.mark.skip(reason='later')", start=4)
    diff += "@@ -8,0 +9,1 @@\n+@pytest.mark.xfail\n"
    found = found_in(diff, lambda _p: head, lambda _p: base)
    assert [(s.line, s.marker) for s in found] == [(4, "pytest mark: skip")]


def test_a_skip_call_inside_an_existing_go_test_counts() -> None:
    """`t.Skip` sits in `TestCount`, which the base had."""
    head = 'func TestCount(t *testing.T) {\n\tt.Skip("later")\n}\n'
    base = "func TestCount(t *testing.T) {\n}\n"
    found = found_in(
        _diff("count_test.go", 't.Skip("later")', start=2), lambda _p: head, lambda _p: base
    )
    assert [s.kind for s in found] == ["skip"]


def test_the_rules_that_allow_a_suppression() -> None:
    """The spec's own, the project's list, the spec quoting it with its code, a person."""
    (coded,) = found_in(
        _diff("a.py", "import yaml  # type: ignore[import-untyped]"), lambda _p: "", lambda _p: None
    )
    (blanket,) = found_in(_diff("a.py", "x = 1  # noqa"), lambda _p: "", lambda _p: None)
    assert allowed_by(coded, SuppressionRules()) == ""
    assert allowed_by(coded, SuppressionRules(spec_keys={coded.key})) == "the spec writer's own"
    project = SuppressionRules(project={"type: ignore[import-untyped]"})
    assert allowed_by(coded, project) == "judges.allow_suppressions"
    spec = "Use `# type: ignore[import-untyped]` on the yaml import: it ships no types."
    assert allowed_by(coded, SuppressionRules(spec_text=spec)) == "the spec asks for it"
    assert allowed_by(blanket, SuppressionRules(spec_text="never write noqa here")) == ""
    assert allowed_by(blanket, SuppressionRules(accepted={blanket.key})) == "a person accepted it"


def test_added_lines_are_numbered_at_the_head() -> None:
    """Hunks give the head's numbers; removed lines are not read."""
    diff = (
        "diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n"
        "@@ -3 +3,2 @@\n-old\n+new\n+more\n@@ -9,0 +11 @@\n+last\n"
    )
    assert added_lines(diff) == {"x.py": [(3, "new"), (4, "more"), (11, "last")]}


def test_the_readers_section_lists_every_fact() -> None:
    """Config, suppressions, skips, tests added and removed, and the spec's tests."""
    (found,) = found_in(_diff("a.py", "x = 1  # noqa"), lambda _p: "", lambda _p: None)
    text = render(
        CheckFacts(
            suppressions=(found,),
            added=("tests/test_a.py::test_b",),
            removed=("tests/test_a.py::test_c",),
            spec_tests=("tests/test_a.py::test_a",),
        )
    )
    assert text.startswith("## What this change does to the checks")
    assert "a.py:1: `noqa`" in text
    assert "tests added: tests/test_a.py::test_b" in text
    assert "tests removed: tests/test_a.py::test_c" in text
    assert "must run and pass by name: tests/test_a.py::test_a" in text
    assert defined_tests("tests/test_a.py", "def test_a():\n    pass\ndef helper():\n") == (
        "test_a",
    )


def test_an_added_line_that_starts_with_two_plus_signs_hides_no_later_suppression() -> None:
    """`++ 0` is added as `+++ 0`: read as an added line, not a file's header, so the
    `type: ignore` after it is found (a header there once dropped the rest of the file)."""
    diff = (
        "diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1,0 +1,3 @@\n"
        "+++ 0\n+y = f()  # type: ignore\n+++x  # noqa\n"
    )
    found = found_in(diff, lambda _: None, lambda _: None)
    assert [(s.line, s.marker) for s in found] == [(2, "type: ignore"), (3, "noqa")]


def test_every_source_suffix_of_an_ecosystem_has_its_markers() -> None:
    """The suffixes are the ecosystems' table's (a second table once left `.hxx` and `.ipp`
    out of C's, and a `NOLINT` there unseen)."""
    for path in ("inc/a.hxx", "inc/a.ipp", "src/a.cc"):
        found = found_in(_diff(path, "int x;  // NOLINT"), lambda _: None, lambda _: None)
        assert [s.marker for s in found] == ["NOLINT"], path
