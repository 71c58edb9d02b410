"""What in a change reaches the checks that judge it: their files, and lines that silence them."""

from __future__ import annotations

from conveyor.core.check_inputs import check_files, silencers
from conveyor.core.config import Paths
from conveyor.core.diff_lines import parse_diff


def test_the_files_the_checks_read_are_named_across_languages() -> None:
    """Python, JS, Go, Rust and C tool files, CI and the practices are named; code is not."""
    changed = [
        "src/app.py", "tests/conftest.py", "pyproject.toml", "package.json", "tsconfig.base.json",
        "go.mod", "Cargo.toml", "CMakeLists.txt", ".github/workflows/ci.yml", "AGENTS.md",
        "web/.eslintrc.json", "README.md", "pkg/CLAUDE.md", ".claude/settings.json",
    ]  # fmt: skip
    assert check_files(changed, Paths()) == (
        ".claude/settings.json", ".github/workflows/ci.yml", "AGENTS.md", "CMakeLists.txt",
        "Cargo.toml", "go.mod", "package.json", "pkg/CLAUDE.md", "pyproject.toml",
        "tests/conftest.py", "tsconfig.base.json", "web/.eslintrc.json",
    )  # fmt: skip


def test_an_added_line_that_silences_a_check_is_a_finding_on_that_line() -> None:
    """noqa, type: ignore, eslint-disable and a skipped test are found; a removed one is not."""
    diff = (
        "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,4 @@\n"
        "-x = 1  # noqa\n+x = 1  # noqa: E501\n+y: int = 'a'  # type: ignore\n"
        " keep = 1\n+@pytest.mark.skip\n"
        "diff --git a/w.js b/w.js\n--- a/w.js\n+++ b/w.js\n@@ -0,0 +1 @@\n"
        "+// eslint-disable-next-line\n"
    )
    found = silencers(parse_diff(diff))
    assert [(s.angle, s.finding.file, s.finding.line) for s in found] == [
        ("checks", "a.py", 1), ("checks", "a.py", 2), ("checks", "a.py", 4), ("checks", "w.js", 1),
    ]  # fmt: skip
