"""The languages Conveyor knows, as data: a row per ecosystem (a new one is one row).

Each row says which files at a repository's root show it (`markers`), which files are
its code (`sources`), its tests (`test_globs`), its comments (`core.comments`), how the
type-only rule reads a changed interface's file (`declarations`, `core.typeonly_rules`),
its runners (`core.runners`: their grammar, exit statuses, output readers and report
variables), the caches its commands share between jobs (`caches`), and the commands
`conveyor init` proposes. The names ("python", "javascript", "typescript", "go", "rust",
"java", "c") are the keys other tables use.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from conveyor.core.comments import C_LIKE, HASH, RUST, Comments


@dataclass(frozen=True)
class Cache:
    """A cache variable: `folder` under the repository's shared cache home (setup writes
    it, tests read it), or, when `own`, under each command's own HOME (written by tests)."""

    var: str
    folder: str
    own: bool = False


@dataclass(frozen=True)
class Ecosystem:
    """One ecosystem's row."""

    name: str
    markers: tuple[str, ...]
    sources: tuple[str, ...]
    test_globs: tuple[str, ...]
    comments: Comments
    declarations: str
    runners: tuple[str, ...]
    caches: tuple[Cache, ...] = ()
    setup: str | None = None
    test: str = ""
    typecheck: str | None = None


def _both(stem: str, suffixes: Iterable[str]) -> tuple[str, ...]:
    return tuple(f"**/*.{stem}.{s}" for s in suffixes)


_JS = ("js", "mjs", "cjs", "jsx")
_TS = ("ts", "mts", "cts", "tsx")
_NPM = (Cache("npm_config_cache", "npm"), Cache("YARN_CACHE_FOLDER", "yarn"))
# `--ignore-scripts`: install scripts (husky, a prepare step) run no code at setup.
_NPM_SETUP = "npm ci --ignore-scripts --no-audit --no-fund"


def _npm_row(
    name: str,
    marker: str,
    suffixes: tuple[str, ...],
    declarations: str,
    runners: tuple[str, ...],
    *,
    typecheck: str | None = None,
) -> Ecosystem:
    """A row of the npm family (JavaScript, TypeScript): the same tests, caches and setup."""
    tests = ("test/**", "tests/**", "**/__tests__/**", *_both("test", suffixes))
    return Ecosystem(
        name,
        (marker,),
        tuple(f".{s}" for s in suffixes),
        (*tests, *_both("spec", suffixes)),
        C_LIKE,
        declarations,
        runners,
        _NPM,
        _NPM_SETUP,
        "npm test",
        typecheck,
    )


ECOSYSTEMS: tuple[Ecosystem, ...] = (
    Ecosystem(
        "python",
        ("pyproject.toml", "setup.py", "setup.cfg", "requirements.txt"),
        (".py", ".pyi"),
        ("tests/**", "test/**", "**/test_*.py", "**/*_test.py"),
        HASH,
        "python",
        ("pytest",),
        setup="pip install -e .",
        test="pytest -q",
    ),
    _npm_row("javascript", "package.json", _JS, "none", ("mocha", "jest", "vitest")),
    _npm_row(
        "typescript",
        "tsconfig.json",
        _TS,
        "typescript",
        ("jest", "vitest", "mocha"),
        typecheck="npx --no-install tsc --noEmit",
    ),
    Ecosystem(
        "go",
        ("go.mod",),
        (".go",),
        ("**/*_test.go", "**/testdata/**"),
        C_LIKE,
        "go",
        ("go-test",),
        (Cache("GOMODCACHE", "go-mod"), Cache("GOCACHE", ".cache/go-build", own=True)),
        "go mod download",
        "go test ./...",
        "go vet ./...",
    ),
    Ecosystem(
        "rust",
        ("Cargo.toml",),
        (".rs",),
        ("tests/**", "benches/**"),
        RUST,
        "rust",
        ("cargo-test",),
        test="cargo test",
    ),
    Ecosystem(
        "java",
        ("pom.xml", "build.gradle", "build.gradle.kts", "settings.gradle"),
        (".java", ".kt", ".kts"),
        ("src/test/**", "**/src/test/**"),
        C_LIKE,
        "java",
        (),
        test="mvn -q test",
    ),
    Ecosystem(
        "c",
        ("CMakeLists.txt", "configure.ac", "meson.build", "Makefile"),
        (".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx", ".ipp"),
        ("test/**", "tests/**", "**/*_test.c", "**/*_test.cc", "**/*_test.cpp", "**/*_unittest.cc"),
        C_LIKE,
        "c",
        ("ctest",),
        setup="cmake -S . -B build",
        test="cmake --build build && ctest --test-dir build --output-on-failure",
    ),
)

_BY_NAME = {e.name: e for e in ECOSYSTEMS}


def ecosystem_named(name: str) -> Ecosystem | None:
    """The row called `name`, if there is one."""
    return _BY_NAME.get(name)


def detect(root_files: Iterable[str]) -> tuple[Ecosystem, ...]:
    """The ecosystems whose markers are among a repository's root files, in table order."""
    present = set(root_files)
    return tuple(e for e in ECOSYSTEMS if any(m in present for m in e.markers))


def of_path(path: str) -> Ecosystem | None:
    """The ecosystem whose source a file is, by its suffix (`.d.ts` is TypeScript's)."""
    for ecosystem in ECOSYSTEMS:
        if path.endswith(ecosystem.sources):
            return ecosystem
    return None


def test_globs(ecosystems: Iterable[Ecosystem]) -> tuple[str, ...]:
    """The test globs of `ecosystems`, each once, in order."""
    return tuple(dict.fromkeys(g for e in ecosystems for g in e.test_globs))


def caches() -> tuple[Cache, ...]:
    """Every ecosystem's cache variables, each once."""
    return tuple({c.var: c for e in ECOSYSTEMS for c in e.caches}.values())
