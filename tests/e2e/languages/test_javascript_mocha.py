"""A JavaScript package tested with mocha takes an issue to a merged PR (issue 47, point 6).

The test command names its test files after an option with a value under test/
(`--require test/support/env`): where the spec's new file is missing (its tests put
back), only that file is left out, never the option's value (point 2). The spec's three
failing tests make mocha exit 3, its count of failures, not pytest's internal error
(point 3); with the fix reverted the new test cannot load its module, a crash the
base does not have, counted as failing.
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
    spec_text,
    whole_issue,
)

MOCHA = (
    "node_modules/.bin/mocha --require test/support/env --check-leaks "
    "test/strings.test.js test/title.test.js"
)
BEHAVIOUR = "`titleCase(text)` capitalises every word."
SPEC = spec_text(
    BEHAVIOUR,
    "lib/title.js",
    "`titleCase` in `lib/title.js`",
    "`test/title.test.js` drives `titleCase`.",
)
TITLE = interface("titleCase", "lib/title.js", "new", "function titleCase(text)", BEHAVIOUR)


def test_a_mocha_package_takes_an_issue_to_a_merged_pr(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """Merged; fails-before-fix counted the new test's crash (its module reverted) as failing."""
    cache = npm_cache()
    world = language_world(
        forge_server, tmp_path, "js-mocha", commands={"setup": NPM_CI, "test": MOCHA}
    )
    seed_npm(world, cache)
    scenario = whole_issue("js", files("js-mocha", "spec"), files("js-mocha", "fix"), [TITLE], SPEC)
    world.write_scenario(scenario)
    number = world.open_issue("Title-case texts [js]", "We need `titleCase`.").number

    checks = drive_merged(world, number)

    assert "fails-before-fix: passed (counted as failing" in checks, checks
    assert len(session_tasks(world, number, "spec")) == 1
    assert world.base_file("lib/title.js") == files("js-mocha", "fix")["lib/title.js"]


def test_a_mocha_package_whose_tests_need_a_package_not_installed_stops_as_environment(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """`Cannot find module 'chai'` in a test the change did not touch: the machine's, no charge."""
    cache = npm_cache()
    strings = files("js-mocha", "base")["test/strings.test.js"]
    needs_chai = {"test/strings.test.js": f'const {{ expect }} = require("chai");\n{strings}'}
    world = language_world(
        forge_server,
        tmp_path,
        "js-mocha",
        commands={"setup": NPM_CI, "test": "npm test"},
        extra=needs_chai,
    )
    seed_npm(world, cache)
    scenario = whole_issue(
        "jsenv", files("js-mocha", "spec"), files("js-mocha", "fix"), [TITLE], SPEC
    )
    world.write_scenario(scenario)
    number = world.open_issue("Title-case texts [jsenv]", "We need `titleCase`.").number

    drive_stopped_environment(world, number, "chai")
