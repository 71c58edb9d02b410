"""A TypeScript package tested with jest takes an issue to a merged PR (issue 47, point 6).

The spec extends an interface (`Shape` gains an optional `perimeter`): the scope rule
accepts it by the worktree's own TypeScript, whose emitted JavaScript is unchanged
(SPEC-89); a change that adds runtime code to that file is refused. jest runs through
`npm test` (the runner read from package.json's script), with `--ci` so that a missing
snapshot is a failure, never written.
"""

from __future__ import annotations

from pathlib import Path

from conveyor.emulator.app.server import ForgeServer
from tests.e2e.helpers import session_tasks
from tests.e2e.languages.fixtures import (
    NPM_CI,
    files,
    interface,
    language_world,
    npm_cache,
    seed_npm,
)
from tests.e2e.languages.sessions import (
    drive_merged,
    drive_stopped_environment,
    spec_entry,
    spec_text,
    whole_issue,
)

BEHAVIOUR = "A square's perimeter is four sides."
SPEC = spec_text(
    BEHAVIOUR,
    "src/shapes.ts",
    "`Shape.perimeter` in `src/shapes.ts`",
    "`test/perimeter.test.ts` asks a square for its perimeter.",
)
SHAPE = interface("Shape", "src/shapes.ts", "changed", "perimeter?(): number", BEHAVIOUR)
TSC = "node_modules/.bin/tsc --noEmit -p ."
COMMANDS = {"setup": NPM_CI, "test": "npm test", "typecheck": TSC}


def test_a_typescript_package_whose_spec_extends_an_interface_merges(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """A first spec that adds a value to the interface's file is refused (by its lines in the
    session's quick check); the second, types only, passes the worktree's TypeScript."""
    cache = npm_cache()
    world = language_world(forge_server, tmp_path, "ts-jest", commands=COMMANDS)
    seed_npm(world, cache)
    fix = {**files("ts-jest", "fix"), "test/area.test.ts": AREA_TEST}
    spec = files("ts-jest", "spec")
    valued = {**spec, "src/shapes.ts": spec["src/shapes.ts"] + 'export const UNIT = "cm";\n'}
    refused = {**spec_entry("ts", valued, [SHAPE], SPEC), "attempt": 1}
    scenario = whole_issue("ts", spec, fix, [SHAPE], SPEC)
    world.write_scenario([scenario[0], refused, *scenario[1:]])
    number = world.open_issue("Shapes need a perimeter [ts]", "A square has no perimeter.").number

    checks = drive_merged(world, number)

    assert "fails-before-fix: passed (failing: test/perimeter.test.ts::" in checks, checks
    tasks = session_tasks(world, number, "spec")
    assert len(tasks) == 2
    assert "src/shapes.ts: a changed interface's file may change only in types" in tasks[1]
    assert 'export const UNIT = "cm";` is not type-level' in tasks[1]
    assert world.base_file("src/shapes.ts") == fix["src/shapes.ts"]


AREA_TEST = (
    files("ts-jest", "base")["test/area.test.ts"]
    + '\ntest("an empty list has no area", () => {\n  expect(totalArea([])).toBe(0);\n});\n'
)


def test_a_typescript_package_without_its_dependencies_installed_stops_as_environment(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """No setup: no TypeScript to judge the interface's change with, the machine's lack."""
    world = language_world(
        forge_server, tmp_path, "ts-jest", commands={"test": "npm test --offline"}
    )
    world.write_scenario(whole_issue("tsenv", files("ts-jest", "spec"), {}, [SHAPE], SPEC))
    number = world.open_issue("Shapes need a perimeter [tsenv]", "No perimeter.").number

    drive_stopped_environment(world, number, "no TypeScript in the worktree")
