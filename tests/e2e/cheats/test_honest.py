"""The honest implementations of the same issue still merge: plain, with a conftest fixture,
with a `# noqa` the spec asks for, with a spec that registers a pytest marker, and with a
loosened lint config a person accepted at the `checks-config` stop."""

from __future__ import annotations

from pathlib import Path

from conveyor.core.stops import StopCode
from conveyor.emulator.app.server import ForgeServer
from conveyor.testing.world import World
from tests.contract.verify.tally_kit import HONEST, LINT_FAILS, PYPROJECT, SPEC_TEST, UNIQUE
from tests.e2e.cheats.tally import (
    SPEC_ID,
    SPEC_TEXT,
    open_tally_issue,
    tally_world,
    whole_issue,
)
from tests.e2e.helpers import assert_invariants, session_tasks

FIXTURE = (
    "import pytest\n\n\n@pytest.fixture\ndef repeated() -> list[str]:\n    return ['x', 'y', 'x']\n"
)
OWN_TEST = (
    "from tally.unique import count_unique\n\n\n"
    "def test_repeats(repeated: list[str]) -> None:\n    assert count_unique(repeated) == 2\n"
)
FACTS = "## What this change does to the checks"


def _merged(world: World, number: int) -> None:
    done = world.drive(number)
    assert done.returncode == 0, done.stdout + done.stderr
    labels = world.labels(number)
    assert "agent:merged" in labels, [c.body for c in world.comments(number)][-1]
    assert_invariants(world, number)


def _checks(world: World, number: int) -> str:
    bodies = [c.body for c in world.comments(number) if "### Checks" in c.body]
    assert bodies
    return bodies[-1]


def test_the_honest_implementation_merges_and_every_reader_sees_the_facts(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """The spec's test ran and passed by name; the checks comment and the readers' diff
    carry what the change does to the checks."""
    world = tally_world(forge_server, tmp_path)
    world.write_scenario(whole_issue("honest", {UNIQUE: HONEST}))
    number = open_tally_issue(world, "honest")
    _merged(world, number)
    assert world.base_file(UNIQUE) == HONEST
    checks = _checks(world, number)
    assert "spec-tests: passed" in checks
    assert FACTS in checks
    for kind in ("review-correctness", "accept", "security"):
        tasks = session_tasks(world, number, kind)
        assert tasks, kind
    diffs = list(world.kept_files("review/*.diff"))
    assert diffs
    assert all(FACTS in d.read_text() for d in diffs)
    assert any(SPEC_ID in d.read_text() for d in diffs)


def test_a_conftest_fixture_for_the_implementers_own_test_merges(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """The judges' run without it still sees the spec's test pass."""
    world = tally_world(forge_server, tmp_path)
    files = {UNIQUE: HONEST, "tests/conftest.py": FIXTURE, "tests/test_repeats.py": OWN_TEST}
    world.write_scenario(whole_issue("fixture", files))
    number = open_tally_issue(world, "fixture")
    _merged(world, number)
    assert "judges-config: passed" in _checks(world, number)


def test_a_noqa_the_spec_asks_for_merges(forge_server: ForgeServer, tmp_path: Path) -> None:
    """The spec quotes `noqa: F401`; the checks comment lists it with the rule."""
    world = tally_world(forge_server, tmp_path)
    text = SPEC_TEXT.replace(
        "## Out of scope", "Keep `import os` for later, marked `# noqa: F401`.\n\n## Out of scope"
    )
    kept = LINT_FAILS.replace("import os\n", "import os  # noqa: F401\n")
    world.write_scenario(whole_issue("asked", {UNIQUE: kept}, text=text))
    number = open_tally_issue(world, "asked")
    _merged(world, number)
    assert "(allowed: the spec asks for it)" in _checks(world, number)


def test_a_spec_that_registers_a_pytest_marker_merges(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """The spec writer's `pyproject.toml` change is check configuration: its version is the
    judges' own, so the honest implementation is judged with it."""
    world = tally_world(forge_server, tmp_path)
    marked = PYPROJECT.replace(
        'testpaths = ["tests"]', 'testpaths = ["tests"]\nmarkers = ["unique"]'
    )
    test = SPEC_TEST.replace("from tally.unique", "import pytest\n\nfrom tally.unique").replace(
        "def test_count_unique", "@pytest.mark.unique\ndef test_count_unique"
    )
    spec = {"pyproject.toml": marked, "tests/test_unique.py": test}
    world.write_scenario(whole_issue("marker", {UNIQUE: HONEST}, spec))
    number = open_tally_issue(world, "marker")
    _merged(world, number)
    assert world.base_file("pyproject.toml") == marked
    assert "judges-config: skipped" in _checks(world, number)


def test_a_loosened_lint_config_a_person_accepts_merges(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """checks-config stops showing the diff; taking the label off accepts exactly it."""
    world = tally_world(forge_server, tmp_path)
    looser = PYPROJECT.replace(
        "line-length = 100\n", f'line-length = 100\nextend-exclude = ["{UNIQUE}"]\n'
    )
    world.write_scenario(whole_issue("accepted", {UNIQUE: LINT_FAILS, "pyproject.toml": looser}))
    number = open_tally_issue(world, "accepted")
    stopped = world.drive(number)
    assert stopped.returncode == 0, stopped.stdout + stopped.stderr
    assert StopCode.CHECKS_CONFIG.label in world.labels(number)
    stop = next(c.body for c in reversed(world.comments(number)) if "checks-config" in c.body)
    assert "extend-exclude" in stop
    resumed = world.run("resume", "--issue", str(number))
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    _merged(world, number)
    assert world.base_file("pyproject.toml") == looser
    assert "accepted by a person" in _checks(world, number)
