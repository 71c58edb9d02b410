"""Small Python projects that are not the sample, and the scripted sessions that fix their bug.

Each project is a package `calc` whose `mul` adds instead of multiplying. The
issue asks for `mul` to multiply; the spec writer commits `tests/test_mul.py`,
the implementer fixes `calc/__init__.py`, and the back half finds nothing.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from conveyor.core.replies import SPEC_END
from conveyor.emulator.app.server import ForgeServer
from conveyor.testing.world import World
from tests.e2e.back.merge_helpers import FAST, clean_back_half
from tests.e2e.helpers import reply, spec_answer, triage

# Boxed, setup writes only its tree and the caches: it counts its runs in the cache home.
SETUP_RUNS = '"$XDG_CACHE_HOME/setup-runs.txt"'
COUNT_SETUP = f"echo run >> {SETUP_RUNS}"


def setup_runs(world: World) -> list[str]:
    """The lines setup commands appended to `SETUP_RUNS` (the repository's cache home)."""
    return (world.repo_home / "cache" / "setup-runs.txt").read_text().splitlines()


PY = sys.executable
PYTEST = f"{PY} -m pytest -q -p no:cacheprovider"
BUGGY = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a + b\n"
FIXED = BUGGY.replace("return a + b\n", "return a * b\n").replace(
    "return a * b\n", "return a + b\n", 1
)
ADD_TEST = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
MUL_TEST = "from calc import mul\n\n\ndef test_mul_multiplies():\n    assert mul(3, 4) == 12\n"
# The implementer's own test, added to a test file the base has (it passes there too): with
# it, verify's fails-before-fix runs again instead of standing on the spec check's (CHK-17).
OWN_TEST = ("tests/test_add.py", ADD_TEST + "\n\ndef test_add_zero():\n    assert add(0, 0) == 0\n")
# A test that needs the network: it fails wherever the suite runs, at the base too.
NETWORK_TEST = (
    "def test_fetches_the_index():\n    raise ConnectionError('no network in this sandbox')\n"
)
SPEC = f"""## Behaviour
- `mul(a, b)` returns the product.

## Out of scope
Nothing else.

## Design
Fix `calc/__init__.py`.

## Test interfaces
`calc.mul`

## Tests
`tests/test_mul.py` drives `mul`.

## Wiki updates
None.

## Assumptions and risks
None.

## Sources
The issue.
{SPEC_END}
"""


PACKAGE = "calc/__init__.py"
INTERFACE = {
    "name": "mul",
    "kind": "function",
    "where": "calc/__init__.py",
    "status": "changed",
    "signature": "def mul(a, b)",
    "behaviours": ["`mul(a, b)` returns the product."],
}


def write_project(root: Path, extra: Mapping[str, str] | None = None) -> Path:
    """The `calc` project's files under `root` (plus `extra` paths), as a plain folder."""
    files = {
        "pyproject.toml": '[project]\nname = "calc"\nversion = "0.1"\n',
        "calc/__init__.py": BUGGY,
        "tests/test_add.py": ADD_TEST,
        ".gitignore": "build/\n__pycache__/\n",
        **(extra or {}),
    }
    for path, text in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    return root


def git_project(root: Path, extra: Mapping[str, str] | None = None, tag: str = "") -> Path:
    """The project as a git repository with one commit (tagged `tag` when given)."""
    write_project(root, extra)
    git = ["git", "-c", "user.name=p", "-c", "user.email=p@p", "-c", "core.hooksPath=/dev/null"]
    subprocess.run([*git, "init", "-q", "-b", "main"], cwd=root, check=True)
    subprocess.run([*git, "add", "-A"], cwd=root, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "The calc project"], cwd=root, check=True)
    if tag:
        subprocess.run([*git, "tag", tag], cwd=root, check=True)
    return root


def project_world(
    server: ForgeServer,
    tmp_path: Path,
    *,
    commands: Mapping[str, Any],
    src: Path | None = None,
    ci: str | None = None,
    ci_base: bool = False,
    ci_network: str | None = None,
) -> World:
    """A World on the `calc` project (a plain folder unless `src`), with fast CI polls.

    `ci` runs on every PR head, and with `ci_base` on the imported base's head too,
    reaching what `ci_network` allows.
    """
    source = src or write_project(tmp_path / "calc")
    config = {**FAST, "commands": {"test": PYTEST, "timeout_seconds": 120, **commands}}
    world_root = tmp_path / "world"
    return World.create(
        server, world_root, config=config, src=source, ci=ci, ci_base=ci_base, ci_network=ci_network
    )


def spec_entry(tag: str, where: str = PACKAGE) -> dict[str, Any]:
    """A spec writer that commits the failing test of `mul` (in `where`) and replies ready."""
    files = [
        {"write": {"path": "tests/test_mul.py", "content": MUL_TEST}},
        {"commit": "A failing test: mul multiplies"},
    ]
    answer = spec_answer(spec=SPEC, interfaces=[{**INTERFACE, "where": where}])
    return {"tag": tag, "kind": "spec", "turns": [{"actions": files}, reply(answer)]}


def no_tests_spec_entry(tag: str) -> dict[str, Any]:
    """A spec writer that commits nothing and replies ready with a `no_tests_reason`: the
    implementer adds the test with the fix."""
    answer = spec_answer(
        spec=SPEC, interfaces=[], no_tests_reason="the implementer adds the test with the fix"
    )
    return {"tag": tag, "kind": "spec", "turns": [reply(answer)]}


def implement_entry(
    tag: str, where: str = PACKAGE, fixed: str = FIXED, *, own_test: bool = False
) -> dict[str, Any]:
    """An implementer that makes `mul` multiply (writes `fixed` to `where`), and with
    `own_test` adds a test of its own (`OWN_TEST`)."""
    files: list[dict[str, Any]] = [{"write": {"path": where, "content": fixed}}]
    if own_test:
        files.append({"write": {"path": OWN_TEST[0], "content": OWN_TEST[1]}})
    files.append({"commit": "mul multiplies"})
    answer: dict[str, Any] = {"status": "done", "summary": "mul multiplies."}
    answer |= {"blocked_reason": None, "deviations": []}
    return {"tag": tag, "kind": "implement", "turns": [{"actions": files}, reply(answer)]}


def whole_issue(
    tag: str, where: str = PACKAGE, fixed: str = FIXED, *, own_test: bool = False
) -> list[dict[str, Any]]:
    """Every session of the issue, triage to security, all clean (`mul` lives in `where`);
    `own_test`: the implementer adds a test too, so fails-before-fix runs in checks."""
    sessions = [spec_entry(tag, where), implement_entry(tag, where, fixed, own_test=own_test)]
    return [triage(tag), *sessions, *clean_back_half(tag)]


def open_mul_issue(world: World, tag: str) -> int:
    """Open the issue (as the trusted user) and return its number."""
    issue = world.open_issue(f"mul should multiply [{tag}]", "`mul(3, 4)` returns 7, not 12.")
    return issue.number
