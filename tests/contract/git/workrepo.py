"""A work tree for tests: write files, commit them and push, through the git layer's runner."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from conveyor.git import GitEnv, Identity, Repo, rev_parse, run_git

TEST_ENV = GitEnv(identity=Identity("Tess Tester", "tess@example.com"), date="1700000000 +0000")


class WorkRepo:
    """A non-bare repository in a temporary folder, cloned from or pushed to a bare one."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.repo = Repo(path, TEST_ENV)

    @classmethod
    def init(cls, path: Path, branch: str = "main") -> WorkRepo:
        """An empty work repository on `branch`."""
        path.mkdir(parents=True, exist_ok=True)
        run_git(["init", "--quiet", f"--initial-branch={branch}"], cwd=path, env=TEST_ENV)
        return cls(path)

    @classmethod
    def clone(cls, url: str, path: Path) -> WorkRepo:
        """A work clone of `url`."""
        run_git(["clone", "--quiet", url, str(path)], cwd=path.parent, env=TEST_ENV)
        return cls(path)

    def git(self, *args: str) -> str:
        """Run git here and return its stdout."""
        return run_git(args, cwd=self.path, env=TEST_ENV).stdout.decode().strip()

    def commit(self, files: Mapping[str, str], message: str) -> str:
        """Write `files`, commit them all with `message` and return the new HEAD."""
        for name, text in files.items():
            target = self.path / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
        self.git("add", "--all")
        self.git("commit", "--quiet", "--allow-empty", "-m", message)
        return rev_parse(self.repo, "HEAD")

    def branch(self, name: str, start: str = "HEAD") -> None:
        """Create and switch to branch `name` at `start`."""
        self.git("checkout", "--quiet", "-B", name, start)

    def push(self, branch: str, *, force: bool = False) -> None:
        """Push `branch` to origin."""
        self.git("push", "--quiet", *(["--force"] if force else []), "origin", branch)
