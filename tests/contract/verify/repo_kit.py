"""A small real repository for verify's tests: a buggy `calc` package and its pytest suite."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

PY = shlex.quote(sys.executable)
PYTEST = f"{PY} -m pytest -q -p no:cacheprovider"

BASE_FILES = {
    "pytest.ini": "[pytest]\npythonpath = .\ntestpaths = tests\n",
    "calc/__init__.py": (
        '"""A tiny calculator."""\n\n\ndef add(a, b):\n    return a - b\n\n\n'
        "def mul(a, b):\n    return a * b\n"
    ),
    "tests/test_mul.py": "from calc import mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n",
    "docs/guide.md": "# Guide\n",
    "README.md": "# calc\n",
}


@dataclass(frozen=True)
class GitRepo:
    """A work tree in tmp_path with a helper to commit files."""

    path: Path

    @classmethod
    def init(cls, path: Path) -> GitRepo:
        """A new empty repository at `path` (made here), on branch `main`."""
        path.mkdir()
        repo = cls(path)
        repo.git("init", "-q", "-b", "main")
        return repo

    def git(self, *args: str) -> str:
        """Run git here with a fixed identity and no user config; return stdout."""
        env = {
            "PATH": os.environ["PATH"],
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_AUTHOR_NAME": "Test",
            "GIT_AUTHOR_EMAIL": "test@example.com",
            "GIT_COMMITTER_NAME": "Test",
            "GIT_COMMITTER_EMAIL": "test@example.com",
        }
        done = subprocess.run(
            ["git", *args], cwd=self.path, env=env, capture_output=True, text=True, check=True
        )
        return done.stdout.strip()

    def commit(self, files: Mapping[str, str | None], message: str = "change") -> str:
        """Write (or, for None, delete) files, commit them all, return the new SHA."""
        for name, text in files.items():
            target = self.path / name
            if text is None:
                target.unlink()
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(text)
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", message)
        return self.git("rev-parse", "HEAD")
