"""What configures a check: the files, and sections of files, whose change alters what judges.

A change to one of them is a change to the judges, not to the work: verify judges it with
the judges' own version (`verify.judges`). The table is data, keyed by ecosystem name
("python", "javascript", "typescript", "go", "rust", "java", "c", and "any" for every
repository), then by the judge each file configures:

- `tests`: the test runner's configuration and plugins (pytest's ini files and sections,
  every `conftest.py`, the interpreter's start-up hooks, jest/vitest/mocha configs, the
  `scripts` a JavaScript test command runs);
- `lint` and `typecheck`: the linters' and type checkers' configuration;
- `ci`: what the forge's required checks run (workflow files, pre-commit).

An entry is a glob (`core.paths`), optionally `glob#section`: then only that part of the
file counts. A TOML or JSON section is a dotted key (`tool.pytest` holds
`tool.pytest.ini_options`), an INI one a section name, `*` allowed (`mypy-*`). Every
ecosystem's entries apply to every repository (a glob that names no file of it costs
nothing); the config's `[judges]` adds entries, drops defaults, and the configured
commands add the files they run (`command_entries`).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from conveyor.core.config_judges import Judges
from conveyor.core.paths import matches


class Judge(StrEnum):
    """Which check a configuration file configures."""

    TESTS = "tests"
    LINT = "lint"
    TYPECHECK = "typecheck"
    CI = "ci"


_PY_TESTS = (
    "**/conftest.py",
    "**/pytest.ini",
    "**/.pytest.ini",
    "**/pyproject.toml#tool.pytest",
    "**/pyproject.toml#tool.coverage",
    "**/pyproject.toml#tool.tox",
    "**/pyproject.toml#project.entry-points.pytest11",
    "**/setup.cfg#tool:pytest",
    "**/setup.cfg#coverage:*",
    "**/setup.cfg#options.entry_points",
    "**/tox.ini",
    "**/.coveragerc",
    "**/noxfile.py",
    "**/sitecustomize.py",
    "**/usercustomize.py",
    "**/*.pth",
    "**/tests/**/__init__.py",
    "**/test/**/__init__.py",
)
_PY_LINT = (
    "**/ruff.toml",
    "**/.ruff.toml",
    "**/pyproject.toml#tool.ruff",
    "**/pyproject.toml#tool.pylint",
    "**/pyproject.toml#tool.flake8",
    "**/pyproject.toml#tool.black",
    "**/pyproject.toml#tool.isort",
    "**/pyproject.toml#tool.bandit",
    "**/.flake8",
    "**/setup.cfg#flake8",
    "**/setup.cfg#pycodestyle",
    "**/setup.cfg#isort",
    "**/.pylintrc",
    "**/pylintrc",
    "**/.isort.cfg",
    "**/.bandit",
)
_PY_TYPES = (
    "**/mypy.ini",
    "**/.mypy.ini",
    "**/pyproject.toml#tool.mypy",
    "**/pyproject.toml#tool.pyright",
    "**/pyproject.toml#tool.basedpyright",
    "**/setup.cfg#mypy",
    "**/setup.cfg#mypy-*",
    "**/pyrightconfig.json",
    "**/.pyre_configuration",
)
_JS_TESTS = (
    "**/jest.config.*",
    "**/vitest.config.*",
    "**/vitest.workspace.*",
    "**/.mocharc*",
    "**/karma.conf.*",
    "**/ava.config.*",
    "**/playwright.config.*",
    "**/.nycrc*",
    "**/package.json#jest",
    "**/package.json#mocha",
    "**/package.json#ava",
    "**/package.json#c8",
    "**/package.json#nyc",
)
_JS_LINT = (
    "**/.eslintrc*",
    "**/eslint.config.*",
    "**/.eslintignore",
    "**/package.json#eslintConfig",
    "**/biome.json",
    "**/biome.jsonc",
    "**/.stylelintrc*",
)

CONFIG_FILES: dict[str, dict[Judge, tuple[str, ...]]] = {
    "python": {Judge.TESTS: _PY_TESTS, Judge.LINT: _PY_LINT, Judge.TYPECHECK: _PY_TYPES},
    "javascript": {Judge.TESTS: _JS_TESTS, Judge.LINT: _JS_LINT},
    "typescript": {
        Judge.TESTS: _JS_TESTS,
        Judge.LINT: _JS_LINT,
        Judge.TYPECHECK: ("**/tsconfig*.json", "**/jsconfig.json"),
    },
    "go": {Judge.LINT: ("**/.golangci.yml", "**/.golangci.yaml", "**/.golangci.toml")},
    "rust": {
        Judge.TESTS: ("**/.cargo/config.toml", "**/.cargo/config", "**/.config/nextest.toml"),
        Judge.LINT: (
            "**/clippy.toml",
            "**/.clippy.toml",
            "**/Cargo.toml#lints",
            "**/Cargo.toml#workspace.lints",
        ),
    },
    "java": {
        Judge.TESTS: ("**/junit-platform.properties",),
        Judge.LINT: ("**/checkstyle*.xml", "**/pmd*.xml", "**/spotbugs*.xml"),
    },
    "c": {
        Judge.TESTS: ("**/CTestCustom.cmake",),
        Judge.LINT: ("**/.clang-tidy", "**/CPPLINT.cfg"),
    },
    "any": {
        Judge.CI: (
            ".github/workflows/**",
            ".github/actions/**",
            ".gitlab-ci.yml",
            ".circleci/**",
            ".travis.yml",
            "azure-pipelines.yml",
            "Jenkinsfile",
            ".buildkite/**",
            ".pre-commit-config.yaml",
            "codecov.yml",
            ".codecov.yml",
        ),
    },
}


@dataclass(frozen=True)
class ConfigEntry:
    """One file (or one section of it, "" for the whole file) that configures `judge`."""

    glob: str
    judge: Judge
    section: str = ""

    @property
    def text(self) -> str:
        """The entry as written in the table: `glob` or `glob#section`."""
        return f"{self.glob}#{self.section}" if self.section else self.glob


def entry(text: str, judge: Judge) -> ConfigEntry:
    """`glob` or `glob#section` as an entry."""
    glob, _, section = text.partition("#")
    return ConfigEntry(glob, judge, section)


def default_entries(ecosystems: Iterable[str] | None = None) -> tuple[ConfigEntry, ...]:
    """The table's entries for `ecosystems` (None: every one), "any" always included."""
    names = CONFIG_FILES if ecosystems is None else ("any", *ecosystems)
    found: list[ConfigEntry] = []
    for name in dict.fromkeys(names):
        for judge, texts in CONFIG_FILES.get(name, {}).items():
            found += [entry(t, judge) for t in texts]
    return tuple(dict.fromkeys(found))


# A command's first words that run a file of the repository: the file it reads.
_RUNNERS: dict[str, tuple[str, ...]] = {
    "make": ("Makefile", "makefile", "GNUmakefile"),
    "tox": ("tox.ini", "pyproject.toml#tool.tox"),
    "nox": ("noxfile.py",),
    "npm": ("package.json#scripts",),
    "yarn": ("package.json#scripts",),
    "pnpm": ("package.json#scripts",),
    "bun": ("package.json#scripts",),
    "just": ("justfile", "Justfile", ".justfile"),
    "invoke": ("tasks.py",),
    "hatch": ("pyproject.toml#tool.hatch", "hatch.toml"),
    "poe": ("pyproject.toml#tool.poe",),
    "pre-commit": (".pre-commit-config.yaml",),
}
_SCRIPT = re.compile(r"^(?:\./)?[\w.-]+(?:/[\w.-]+)*\.(?:sh|bash|py|js|mjs|cjs|ts|pl|rb)$")


def _command_files(command: str) -> tuple[str, ...]:
    """The repository files `command` runs: its runners' files and the scripts it names."""
    try:
        words = shlex.split(command, comments=True)
    except ValueError:
        words = command.split()
    found: list[str] = []
    for word in words:
        name = word.rsplit("/", 1)[-1]
        found += _RUNNERS.get(name, ())
        if _SCRIPT.match(word) and not word.startswith("-"):
            found.append(word.removeprefix("./"))
    return tuple(dict.fromkeys(found))


def command_entries(commands: dict[Judge, str | None]) -> tuple[ConfigEntry, ...]:
    """The files each configured command runs, as entries of the judge it is."""
    found: list[ConfigEntry] = []
    for judge, command in commands.items():
        if command:
            found += [entry(text, judge) for text in _command_files(command)]
    return tuple(dict.fromkeys(found))


def matching(path: str, entries: Iterable[ConfigEntry]) -> tuple[ConfigEntry, ...]:
    """The entries whose glob matches `path`."""
    return tuple(e for e in entries if matches(path, e.glob))


def judge_entries(judges: Judges, commands: dict[Judge, str | None]) -> tuple[ConfigEntry, ...]:
    """Every entry that counts: the defaults and the commands' files, less the config's
    `ignore`, plus its own entries."""
    added = [
        entry(text, judge)
        for judge, texts in (
            (Judge.TESTS, judges.tests),
            (Judge.LINT, judges.lint),
            (Judge.TYPECHECK, judges.typecheck),
            (Judge.CI, judges.ci),
        )
        for text in texts
    ]
    found = (*default_entries(judges.ecosystems), *command_entries(commands))
    kept = [e for e in found if e.text not in judges.ignore]
    return tuple(dict.fromkeys((*kept, *added)))
