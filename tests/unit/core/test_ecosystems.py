"""The ecosystem table (issue 47, point 1): detection, test files, runners, caches."""

from __future__ import annotations

import pytest

from conveyor.core.config import Paths
from conveyor.core.ecosystems import ECOSYSTEMS, caches, detect, ecosystem_named, of_path
from conveyor.core.paths import matches_any
from conveyor.core.runners import RUNNERS, runner_named

# A test file of each ecosystem, as real projects lay them out.
TEST_FILES = {
    "python": ("tests/test_calc.py", "pkg/calc_test.py"),
    "javascript": ("test/app.render.js", "src/calc.test.js", "lib/__tests__/calc.js"),
    "typescript": ("src/calc.spec.ts", "src/components/Button.test.tsx"),
    "go": ("calc/calc_test.go", "calc/testdata/input.txt"),
    "rust": ("tests/mul.rs",),
    "java": ("src/test/java/CalcTest.java",),
    "c": ("test/args-test.cc", "src/calc_unittest.cc"),
}
NOT_TESTS = ("src/calc.ts", "calc/calc.go", "src/lib.rs", "src/calc.cc", "lib/app.js")


@pytest.mark.parametrize("ecosystem", ECOSYSTEMS, ids=lambda e: e.name)
def test_each_ecosystems_test_files_are_its_own_and_the_defaults_tests(ecosystem: object) -> None:
    """Its globs and `paths.tests`' default both match its test files; its code they do not."""
    row = ecosystem_named(getattr(ecosystem, "name", ""))
    assert row is not None
    for path in TEST_FILES[row.name]:
        assert matches_any(path, row.test_globs), path
        assert matches_any(path, Paths().tests), path
    for path in NOT_TESTS:
        assert not matches_any(path, Paths().tests), path


def test_a_repository_shows_its_ecosystems_by_its_root_files() -> None:
    """package.json and tsconfig.json: JavaScript and TypeScript; go.mod: Go; and so on."""

    def names(files: list[str]) -> list[str]:
        return [e.name for e in detect(files)]

    assert names(["package.json", "tsconfig.json", "README.md"]) == ["javascript", "typescript"]
    assert names(["go.mod"]) == ["go"]
    assert names(["Cargo.toml", "CMakeLists.txt"]) == ["rust", "c"]
    assert names(["pyproject.toml"]) == ["python"]
    assert names(["README.md"]) == []


def test_every_runner_belongs_to_a_known_ecosystem_and_every_named_runner_exists() -> None:
    """The two tables agree: a new runner is one row in each."""
    names = {e.name for e in ECOSYSTEMS}
    assert {r.ecosystem for r in RUNNERS} <= names
    for ecosystem in ECOSYSTEMS:
        assert all(runner_named(r) is not None for r in ecosystem.runners), ecosystem.name


def test_a_files_language_is_read_from_its_suffix() -> None:
    """`.d.ts` is TypeScript's, `.h` C's, `.rs` Rust's."""
    languages = {p: getattr(of_path(p), "name", None) for p in ("a.d.ts", "a.h", "a.rs", "a.md")}
    assert languages == {"a.d.ts": "typescript", "a.h": "c", "a.rs": "rust", "a.md": None}


def test_shared_caches_are_named_once_and_go_builds_in_its_own() -> None:
    """npm's cache is shared; Go's build cache, written by the tests, never is."""
    by_var = {c.var: c for c in caches()}
    assert not by_var["npm_config_cache"].own
    assert by_var["GOCACHE"].own
