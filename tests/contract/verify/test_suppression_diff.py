"""The suppressions a real `git diff` adds are found whatever the file's name or the added
line's first characters (a quoted path, an added line `++ …`)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from conveyor.core.suppressions import found_in


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=True)
    return done.stdout.decode()


def test_suppressions_behind_a_quoted_name_or_a_plus_plus_line_are_found(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    _git(tmp_path, "init", "-q", str(repo))
    _git(
        repo,
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@t",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "b",
    )
    (repo / "t\u00ebst.py").write_text("import os  # noqa\n")
    (repo / "n.py").write_text("++ 0\nimport os  # noqa: F401\n")
    _git(repo, "add", "-A")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "h")
    diff = _git(repo, "diff", "-U0", "--text", "--no-renames", "--no-color", "HEAD~1", "HEAD")
    found = found_in(diff, lambda _: None, lambda _: None)
    assert sorted((s.path, s.line, s.marker) for s in found) == [
        ("n.py", 2, "noqa: F401"),
        ("t\u00ebst.py", 1, "noqa"),
    ]
