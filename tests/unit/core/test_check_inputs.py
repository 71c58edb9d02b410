"""What in a change reaches the checks that judge it: their files, and lines that silence them."""

from __future__ import annotations

from typing import Any

from conveyor.core.check_inputs import check_files, silencers
from conveyor.core.config import Config
from conveyor.core.diff_lines import parse_diff


def config(**commands: Any) -> Config:
    """A config with these commands (the test command `make test` by default)."""
    return Config.model_validate({
        "repo": "acme/app", "account": {"login": "bot", "token_env": "T"},
        "allowed_users": ["alice"], "commands": {"test": "make test", **commands},
    })  # fmt: skip


def test_the_files_the_checks_and_agents_read_are_named_across_languages() -> None:
    """Python, JS, Rust and C check configs, CI, what the commands run, agents' files and the
    practices are named; code and the README are not."""
    changed = [
        "src/app.py", "tests/conftest.py", "pyproject.toml", "web/.eslintrc.json",
        "tsconfig.base.json", "clippy.toml", ".clang-tidy", ".github/workflows/ci.yml",
        "Makefile", "AGENTS.md", "pkg/CLAUDE.md", ".claude/settings.json", "README.md",
    ]  # fmt: skip
    assert check_files(changed, config()) == (
        ".clang-tidy", ".claude/settings.json", ".github/workflows/ci.yml", "AGENTS.md",
        "Makefile", "clippy.toml", "pkg/CLAUDE.md", "pyproject.toml", "tests/conftest.py",
        "tsconfig.base.json", "web/.eslintrc.json",
    )  # fmt: skip


def test_an_added_line_that_silences_a_check_is_a_finding_on_that_line() -> None:
    """noqa, type: ignore and a skipped test in Python, eslint-disable in JS, each on its line;
    a removed marker is not one."""
    diff = (
        "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,4 @@\n"
        "-x = 1  # noqa\n+x = 1  # noqa: E501\n+y: int = 'a'  # type: ignore\n"
        " keep = 1\n+@pytest.mark.skip\n"
        "diff --git a/w.js b/w.js\n--- a/w.js\n+++ b/w.js\n@@ -0,0 +1 @@\n"
        "+// eslint-disable-next-line no-eval\n"
    )
    found = silencers(parse_diff(diff))
    assert [(s.angle, s.finding.file, s.finding.line) for s in found] == [
        ("checks", "a.py", 1), ("checks", "a.py", 2), ("checks", "a.py", 4), ("checks", "w.js", 1),
    ]  # fmt: skip
    assert "silences the linter" in found[0].finding.claim
    assert "noqa" in found[0].finding.claim
