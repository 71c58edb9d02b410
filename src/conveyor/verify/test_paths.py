"""A test command that names test files, fitted to one tree: files missing there are left out.

`pytest tests/test_a.py tests/test_new.py` at a commit before the spec added
`tests/test_new.py` would be a usage error (pytest exit 4). Where the command starts a
runner whose command line Conveyor knows (pytest, mocha, jest, vitest:
`core.runners`), each positional word that is a test path (a `paths.tests` match, a
test file's suffix, a `::node` selection) and does not exist in the tree is left out;
an option's value never is (`mocha --require test/support/env`). When every named
test path is missing, there is nothing to run (None). Any other command runs as written
(`commands.test_files` is the way to run given files with it).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from conveyor.core.command_fit import fit


def fit_command(command: str, tree: Path, globs: Sequence[str]) -> str | None:
    """`command` without the test paths missing in `tree`; None when it named only missing ones.

    Only plain words are looked at; quoted or substituted parts of the shell
    command are left as they are.
    """
    return fit(command, lambda path: (tree / path).exists(), globs)
