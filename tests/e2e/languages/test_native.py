"""A Rust crate, a C++ library built with cmake and a Go module take an issue to a merged PR
(issue 47, point 6); a broken variant of each stops as environment, charged to no one.

- Rust (standard library only): `cargo test` exits 101; its failures are read from
  libtest's output under the file its `Running` line names.
- C++: cmake builds out of the source tree (`build/`), which the shared setup must not
  hand to another tree (point 4): each tree configures and builds its own sources. The
  spec adds a prototype to a header (the C/C++ type-only rule, point 5) and a test that
  does not link before the fix: a build failure the base does not have, counted as the
  new test failing (point 3). ctest's failures are read from its output.
- Go: the spec adds a method to an interface; the new test does not compile before the
  fix. Skipped, saying so, where no Go toolchain is installed.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from conveyor.emulator.app.server import ForgeServer
from tests.e2e.helpers import session_tasks
from tests.e2e.languages.fixtures import files, interface, language_world, need
from tests.e2e.languages.sessions import (
    drive_merged,
    drive_stopped_environment,
    spec_text,
    whole_issue,
)

CMAKE_SETUP = "cmake -S . -B build -DCMAKE_BUILD_TYPE=Debug"
CTEST = "cmake --build build -j2 && ctest --test-dir build --output-on-failure"


def _cargo_config() -> tuple[dict[str, Any], dict[str, str]]:
    """What rustup's `cargo` needs in a world whose HOME is not the user's: `RUSTUP_HOME`
    (the box gives rustup's folders back, issue 46)."""
    rustup = os.environ.get("RUSTUP_HOME", str(Path.home() / ".rustup"))
    env = {"RUSTUP_HOME": rustup} if Path(rustup).is_dir() else {}
    return {"passthrough_env": sorted(env)}, env


RUST_BEHAVIOUR = "`mul(a, b)` returns the product."
RUST_SPEC = spec_text(RUST_BEHAVIOUR, "src/lib.rs", "`calc::mul`", "`tests/mul.rs`.")
MUL = interface("mul", "src/lib.rs", "changed", "pub fn mul(a: i64, b: i64) -> i64", RUST_BEHAVIOUR)


def test_a_rust_crate_takes_an_issue_to_a_merged_pr(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """fails-before-fix names the new tests by their file: libtest's output read."""
    need("cargo")
    config, env = _cargo_config()
    world = language_world(
        forge_server,
        tmp_path,
        "rust-crate",
        commands={"test": "cargo test --offline"},
        config=config,
    )
    world.extra_env = env
    spec, fix = files("rust-crate", "spec"), files("rust-crate", "fix")
    world.write_scenario(whole_issue("rust", spec, fix, [MUL], RUST_SPEC))
    number = world.open_issue("mul adds [rust]", "`mul(3, 4)` is 7.").number

    checks = drive_merged(world, number)

    assert "fails-before-fix: passed (failing: tests/mul.rs::multiplies" in checks, checks


def test_a_rust_crate_that_does_not_compile_at_the_base_stops(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """A compile failure the base has too says nothing of the new tests."""
    need("cargo")
    config, env = _cargo_config()
    broken = {"src/broken.rs": "pub fn broken( {\n", "src/main.rs": "mod broken;\nfn main() {}\n"}
    world = language_world(
        forge_server,
        tmp_path,
        "rust-crate",
        commands={"test": "cargo test --offline"},
        config=config,
        extra=broken,
    )
    world.extra_env = env
    world.write_scenario(whole_issue("rustenv", files("rust-crate", "spec"), {}, [MUL], RUST_SPEC))
    number = world.open_issue("mul adds [rustenv]", "`mul(3, 4)` is 7.").number

    drive_stopped_environment(world, number, "without reporting any test")


CPP_BEHAVIOUR = "`option_value` returns an option's value, or the fallback."
CPP_SPEC = spec_text(
    CPP_BEHAVIOUR, "src/args.cc", "`option_value` in `src/args.h`", "`test/option_test.cc`."
)
OPTION = interface(
    "option_value", "src/args.h", "changed", "std::string option_value(...)", CPP_BEHAVIOUR
)


def test_a_cmake_library_with_an_out_of_source_build_takes_an_issue_to_a_merged_pr(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """Each tree builds its own sources; the new test's link failure before the fix counts."""
    need("cmake", "c++", "ctest")
    commands = {"setup": CMAKE_SETUP, "test": CTEST}
    world = language_world(forge_server, tmp_path, "cpp-cmake", commands=commands)
    spec, fix = files("cpp-cmake", "spec"), files("cpp-cmake", "fix")
    world.write_scenario(whole_issue("cpp", spec, fix, [OPTION], CPP_SPEC))
    number = world.open_issue("Options need values [cpp]", "No `option_value`.").number

    checks = drive_merged(world, number)

    assert "fails-before-fix: passed (counted as failing" in checks, checks
    assert "bound to the shared setup's tree" in checks, checks
    assert len(session_tasks(world, number, "spec")) == 1


def test_a_cmake_library_whose_configure_cannot_find_a_library_stops(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """`find_package(… REQUIRED)` of a library not installed: setup fails, the machine's."""
    need("cmake", "c++", "ctest")
    cmake = files("cpp-cmake", "base")["CMakeLists.txt"]
    needs = {"CMakeLists.txt": cmake + "find_package(NoSuchLibraryForConveyor REQUIRED)\n"}
    commands = {"setup": CMAKE_SETUP, "test": CTEST}
    world = language_world(forge_server, tmp_path, "cpp-cmake", commands=commands, extra=needs)
    world.write_scenario(whole_issue("cppenv", files("cpp-cmake", "spec"), {}, [OPTION], CPP_SPEC))
    number = world.open_issue("Options need values [cppenv]", "No `option_value`.").number

    drive_stopped_environment(world, number, "NoSuchLibraryForConveyor")


GO_BEHAVIOUR = "A square's perimeter is four sides."
GO_SPEC = spec_text(GO_BEHAVIOUR, "shapes/shapes.go", "`Shape.Perimeter`", "`perimeter_test.go`.")
PERIMETER = interface("Shape", "shapes/shapes.go", "changed", "Perimeter() float64", GO_BEHAVIOUR)


def test_a_go_module_takes_an_issue_to_a_merged_pr(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """The interface gains a method (Go's type-only rule); the new test's build failure counts."""
    need("go")
    world = language_world(forge_server, tmp_path, "go-module", commands={"test": "go test ./..."})
    spec, fix = files("go-module", "spec"), files("go-module", "fix")
    world.write_scenario(whole_issue("go", spec, fix, [PERIMETER], GO_SPEC))
    number = world.open_issue("Shapes need a perimeter [go]", "No perimeter.").number

    checks = drive_merged(world, number)

    assert "fails-before-fix: passed (counted as failing" in checks, checks


def test_a_go_module_that_does_not_build_at_the_base_stops(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """A package that does not build at the base: nothing of the new tests is known."""
    need("go")
    broken = {"shapes/broken.go": "package shapes\n\nfunc broken( {\n"}
    world = language_world(
        forge_server, tmp_path, "go-module", commands={"test": "go test ./..."}, extra=broken
    )
    world.write_scenario(whole_issue("goenv", files("go-module", "spec"), {}, [PERIMETER], GO_SPEC))
    number = world.open_issue("Shapes need a perimeter [goenv]", "No perimeter.").number

    drive_stopped_environment(world, number, "without reporting any test")
