"""A shared setup's out-of-source build is never handed to another tree (issue 47, point 4):
linked in, cmake's `build/` compiled the shared tree's sources, without the change."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conveyor.core.config import Commands, Paths
from conveyor.core.verify import Outcome
from conveyor.verify.build_dirs import tree_bound
from conveyor.verify.run import SharedDirs, verify
from tests.contract.verify.repo_kit import GitRepo

CMAKE = shutil.which("cmake") is not None and shutil.which("c++") is not None
needs_cmake = pytest.mark.skipif(not CMAKE, reason="cmake and a C++ compiler are not installed")

PROJECT = {
    ".gitignore": "build/\n",
    "CMakeLists.txt": (
        "cmake_minimum_required(VERSION 3.10)\nproject(calc CXX)\nenable_testing()\n"
        "add_library(calc src/calc.cc)\ntarget_include_directories(calc PUBLIC src)\n"
        "add_executable(calc_test test/calc_test.cc)\n"
        "target_link_libraries(calc_test calc)\nadd_test(NAME calc_test COMMAND calc_test)\n"
    ),
    "src/calc.h": "int mul(int a, int b);\n",
    "src/calc.cc": '#include "calc.h"\nint mul(int a, int b) { return a + b; }\n',
    "test/calc_test.cc": '#include "calc.h"\nint main() { return mul(2, 2) == 4 ? 0 : 1; }\n',
}
FIXED = '#include "calc.h"\nint mul(int a, int b) { return a * b; }\n'
NEW_TEST = '#include "calc.h"\nint main() { return mul(2, 2) == 4 && mul(3, 4) == 12 ? 0 : 1; }\n'
SETUP = "cmake -S . -B build -DCMAKE_BUILD_TYPE=Debug >/dev/null"
TEST = "cmake --build build >/dev/null && ctest --test-dir build --output-on-failure"


def test_a_build_folder_naming_the_shared_tree_and_a_link_into_its_sources_are_bound(
    tmp_path: Path,
) -> None:
    """CMakeCache.txt naming the tree, an npm workspace's link: bound; a venv is not."""
    build = tmp_path / "tree"
    (build / "build").mkdir(parents=True)
    (build / "build" / "CMakeCache.txt").write_text(f"CMAKE_HOME_DIRECTORY:INTERNAL={build}\n")
    (build / "packages" / "core").mkdir(parents=True)
    (build / "node_modules" / "@acme").mkdir(parents=True)
    (build / "node_modules" / "@acme" / "core").symlink_to(build / "packages" / "core")
    (build / ".venv" / "bin").mkdir(parents=True)
    (build / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    bound = tree_bound(build, ("build", "node_modules", ".venv"))
    assert [b.split(" ", 1)[0] for b in bound] == ["build", "node_modules"]
    assert "CMakeCache.txt" in bound[0]


@needs_cmake
def test_each_tree_builds_its_own_sources_where_setup_is_shared(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """fails-before-fix's tree, the fix reverted, compiles its own `calc.cc` and fails."""
    repo = GitRepo.init(tmp_path / "checkout")
    base = repo.commit(PROJECT, "base")
    head = repo.commit({"src/calc.cc": FIXED, "test/calc_test.cc": NEW_TEST}, "fix")
    commands = Commands(setup=SETUP, test=TEST, timeout_seconds=300)
    shared = SharedDirs(
        envs_dir=tmp_path / "envs", baselines_dir=tmp_path / "bases", test_globs=Paths().tests
    )

    result = verify(
        repo.path,
        commands,
        env,
        Paths(),
        base_sha=base,
        head_sha=head,
        logs_dir=tmp_path / "logs",
        shared=shared,
    )

    assert result.commands[1].outcome is Outcome.PASSED, result.commands[1].tail
    assert result.fails_before_fix.outcome is Outcome.PASSED, result.fails_before_fix.reason
    setup = result.fails_before_fix.runs[0]
    assert "bound to the shared setup's tree" in setup.reason
