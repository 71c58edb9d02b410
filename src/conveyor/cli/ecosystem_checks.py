"""A checkout's ecosystems, for `init --checkout` (the commands and `paths.tests` it writes) and
`doctor --checkout` (whether the config's `paths.tests` and test command fit them).

The ecosystems are detected from the checkout's root files (`core.ecosystems.detect`:
package.json, tsconfig.json, go.mod, Cargo.toml, CMakeLists.txt, pyproject.toml…).
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from conveyor.core.config import Config
from conveyor.core.ecosystems import Ecosystem, detect, test_globs
from conveyor.core.paths import matches_any
from conveyor.git.plain import PlainGitError, git_in
from conveyor.verify.runner_of import package_scripts, runner_of

# The program each ecosystem's commands need, checked by doctor.
_TOOLS = {"javascript": "node", "typescript": "node", "go": "go", "rust": "cargo", "c": "cmake"}
_SHOWN = 3


@dataclass(frozen=True)
class EcosystemCheck:
    """One line of doctor's report."""

    name: str
    ok: bool
    detail: str


def ecosystems_of(checkout: Path) -> tuple[Ecosystem, ...]:
    """The ecosystems the checkout's root files show."""
    try:
        names = [p.name for p in checkout.iterdir()]
    except OSError:
        return ()
    return detect(names)


def _tracked(checkout: Path) -> list[str]:
    """The checkout's tracked files, read with no hook and no fsmonitor: the checkout may be
    one an agent wrote, and git runs `core.fsmonitor` from its own `.git/config` on ls-files."""
    try:
        out = git_in(checkout, "-c", "core.fsmonitor=false", "ls-files", "-z")
    except PlainGitError:
        return []
    return [p for p in out.decode(errors="replace").split("\0") if p]


def starter_sections(checkout: Path) -> tuple[str, str]:
    """The `[commands]` body and the `[paths]` tests line for the checkout's ecosystems."""
    found = ecosystems_of(checkout)
    if not found:
        return "", ""
    main = next((e for e in found if e.name == "typescript"), found[0])
    lines = [f"# detected: {', '.join(e.name for e in found)}"]
    if main.setup:
        lines.append(f'setup = "{main.setup}"')
    test = main.test
    if main.name in ("javascript", "typescript") and "test" not in package_scripts(checkout):
        test = "npx --no-install jest --ci"
    lines.append(f'test = "{test}"')
    if main.typecheck:
        lines.append(f'typecheck = "{main.typecheck}"')
    globs = ", ".join(f'"{g}"' for g in test_globs(found))
    return "\n".join(lines) + "\n", f"tests = [{globs}]\n"


def check_ecosystems(config: Config, checkout: Path) -> list[EcosystemCheck]:
    """Whether `paths.tests` covers each ecosystem's test files, the test command starts a
    runner Conveyor reads, and each ecosystem's tool is installed."""
    found = ecosystems_of(checkout)
    if not found:
        return [EcosystemCheck("ecosystems", False, f"{checkout}: no ecosystem's files found")]
    checks = [EcosystemCheck("ecosystems", True, ", ".join(e.name for e in found))]
    tracked = _tracked(checkout)
    for ecosystem in found:
        tests = [p for p in tracked if matches_any(p, ecosystem.test_globs)]
        missed = [p for p in tests if not matches_any(p, config.paths.tests)]
        name = f"paths.tests ({ecosystem.name})"
        if missed:
            shown = ", ".join(missed[:_SHOWN]) + (" …" if len(missed) > _SHOWN else "")
            why = f"{len(missed)} of its {len(tests)} test files match no glob: {shown}; add "
            why += ", ".join(f'"{g}"' for g in ecosystem.test_globs)
            checks.append(EcosystemCheck(name, False, why))
        else:
            checks.append(EcosystemCheck(name, True, f"covers its {len(tests)} test files"))
        tool = _TOOLS.get(ecosystem.name)
        if tool is not None:
            where = shutil.which(tool)
            checks.append(EcosystemCheck(f"tool {tool}", where is not None, where or "not found"))
    runner = runner_of(config.commands.test, checkout)
    detail = (
        f"starts {runner.name}: its exit statuses and output are read as its own"
        if runner is not None
        else "starts no runner Conveyor knows: a failure is read from the exit status only"
    )
    checks.append(EcosystemCheck("test runner", True, detail))
    return checks
