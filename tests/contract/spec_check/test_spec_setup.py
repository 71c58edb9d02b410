"""The spec check's lint and typecheck see what the shared setup made (issue 47): a
TypeScript project's `typecheck = "node_modules/.bin/tsc …"` needs `node_modules`, which
the checkout has only once setup's products are linked in."""

from __future__ import annotations

import os
from pathlib import Path

from conveyor.core.config import Commands, Paths
from conveyor.ops.local.spec_check import check_spec_commits
from conveyor.verify.context import Context
from tests.contract.spec_check.test_spec_check import DIV, FAILING_TEST, STUB
from tests.contract.verify.repo_kit import BASE_FILES, PYTEST, GitRepo

# Setup makes a tool the typecheck command runs, as `npm ci` makes node_modules/.bin/tsc.
SETUP = "mkdir -p tools && printf '#!/bin/sh\\nexit 0\\n' > tools/check && chmod +x tools/check"


def test_typecheck_runs_with_the_shared_setups_products_linked_in(tmp_path: Path) -> None:
    """Without them the typecheck's program is missing: a finding the spec writer cannot fix."""
    work = GitRepo.init(tmp_path / "checkout")
    start = work.commit({**BASE_FILES, ".gitignore": "tools/\n"}, "base")
    work.commit({"calc/div.py": STUB, "tests/test_div.py": FAILING_TEST})
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
    }
    commands = Commands(setup=SETUP, test=PYTEST, lint="true", typecheck="tools/check")
    ctx = Context(work.path, commands, env, tmp_path / "logs", tmp_path, envs_dir=tmp_path / "e")

    verdict = check_spec_commits(ctx, Paths(), start=start, interfaces=(DIV,), no_tests_reason=None)

    assert verdict.findings == ()
    assert verdict.ok, verdict.environment
