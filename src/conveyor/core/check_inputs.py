"""What in a change reaches the checks that judge it: the files they (and the agents
reviewing it) read, and lines that silence them. A PR that edits them changes the rules
its own review and CI measure it by, so a review says so (a `conftest.py`, a config key,
a `CLAUDE.md`, a `# noqa`).

Pure: the globs below cover the test runners, linters, type checkers, build and CI files
of Python, JavaScript/TypeScript, Go, Rust and C projects, in any folder, and the files
agent CLIs read by themselves; the config adds its practices files and lockfiles. A
silencing comment is found on the lines the change adds.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from conveyor.core.config import Paths
from conveyor.core.diff_lines import FileDiff, added_lines
from conveyor.core.paths import matches_any, normalise
from conveyor.core.review_judge import Spotted
from conveyor.core.review_replies import AngleFinding

_TOOL_FILES = (
    "pyproject.toml", "setup.cfg", "setup.py", "tox.ini", "pytest.ini", "noxfile.py",
    "conftest.py", ".coveragerc", "mypy.ini", ".mypy.ini", "ruff.toml", ".ruff.toml",
    ".flake8", ".pylintrc", ".importlinter", "requirements*.txt", ".python-version",
    "package.json", "tsconfig*.json", ".eslintrc*", "eslint.config.*", "jest.config.*",
    "vitest.config.*", ".prettierrc*", "babel.config.*", ".npmrc", ".nvmrc",
    "go.mod", "go.sum", ".golangci.*", "Cargo.toml", "rust-toolchain*", "clippy.toml",
    "Makefile", "CMakeLists.txt", "*.cmake", "meson.build", "configure.ac",
    ".gitattributes", ".gitmodules", ".editorconfig", ".pre-commit-config.yaml",
    # What agent CLIs read by themselves, the review's own sessions included.
    "CLAUDE.md", "AGENTS.md", "GEMINI.md", ".cursorrules", "opencode.json",
)  # fmt: skip
# A tool file counts in any folder (a monorepo's packages have their own).
CHECK_FILES = (
    *(f"**/{name}" for name in _TOOL_FILES),
    ".github/**",
    ".gitlab-ci.yml",
    ".circleci/**",
    ".claude/**",
    ".codex/**",
    ".opencode/**",
)
ANGLE = "checks"
_SILENCERS = re.compile(
    r"#\s*noqa\b|#\s*type:\s*ignore|#\s*pragma:\s*no\s*cover|#\s*nosec\b|#\s*pylint:\s*disable"
    r"|eslint-disable|@ts-ignore|@ts-nocheck|@ts-expect-error|//\s*nolint\b|#\[allow\("
    r"|pytest\.mark\.(?:skip|xfail)\b|@unittest\.skip|\bt\.Skip\(|NOLINT",
    re.IGNORECASE,
)


def check_files(changed: Iterable[str], paths: Paths) -> tuple[str, ...]:
    """The changed paths the checks read: test and tool configs, CI, practices, lockfiles."""
    globs = (*CHECK_FILES, *paths.practices, *paths.lockfiles)
    return tuple(sorted({normalise(p) for p in changed if matches_any(normalise(p), globs)}))


def silencers(files: Iterable[FileDiff]) -> tuple[Spotted, ...]:
    """A finding for each added line that silences a check (one per file and kind)."""
    found: list[Spotted] = []
    for entry in files:
        seen: set[str] = set()
        for number, text in added_lines(entry):
            match = _SILENCERS.search(text)
            if match is None or match.group(0).lower() in seen:
                continue
            seen.add(match.group(0).lower())
            finding = AngleFinding(
                severity="minor",
                file=entry.path,
                line=number,
                end_line=None,
                claim=f"adds `{match.group(0).strip()}`, which silences a check",
                evidence=f"added line: {text.strip()[:200]}",
                suggestion="fix what the check reports, or say in the code why it is wrong here",
            )
            found.append(Spotted(ANGLE, finding))
    return tuple(found)
