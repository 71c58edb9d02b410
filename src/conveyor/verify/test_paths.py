"""A test command that names test files, fitted to one tree: files missing there are left out.

`pytest tests/test_a.py tests/test_new.py` at a commit before the spec added
`tests/test_new.py` would be a usage error (pytest exit 4). Each word of the
command that is a test path (a `paths.tests` match, or a `.py` file, with an
optional `::node` selection) and does not exist in the tree is dropped. When
every named test path is missing, there is nothing to run (None).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from conveyor.core.paths import matches_any

_WORD = re.compile(r"^[\w.@+/-]+(?:::[^\s'\"]*)?$")


def _is_test_path(word: str, globs: Sequence[str]) -> bool:
    if not _WORD.match(word) or word.startswith("-"):
        return False
    path = word.split("::", 1)[0].rstrip("/")
    if not path or path.startswith("/"):
        return False
    return "::" in word or path.endswith(".py") or matches_any(path, globs)


def fit_command(command: str, tree: Path, globs: Sequence[str]) -> str | None:
    """`command` without the test paths missing in `tree`; None when it named only missing ones.

    Only plain words are looked at; quoted or substituted parts of the shell
    command are left as they are.
    """
    parts = re.split(r"(\s+)", command)
    named = missing = 0
    kept: list[str] = []
    for part in parts:
        if part and not part.isspace() and _is_test_path(part, globs):
            path = part.split("::", 1)[0]
            if (tree / path).exists():
                named += 1
            elif "/" in path or path.endswith(".py"):
                named += 1
                missing += 1
                continue
        kept.append(part)
    if not missing:
        return command
    if missing == named:
        return None
    return re.sub(r"\s+", " ", "".join(kept)).strip()
