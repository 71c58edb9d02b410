"""Installing hooks in a repository (the emulator's post-receive, later the job's pre-push)."""

from __future__ import annotations

import stat
from pathlib import Path

from conveyor.git.runner import Repo, git_text


def hooks_dir(repo: Repo) -> str:
    """The hooks folder git uses for `repo` (absolute)."""
    return git_text(repo, "rev-parse", "--path-format=absolute", "--git-path", "hooks")


def install_hook(repo: Repo, name: str, script: str) -> None:
    """Write `script` as hook `name` (e.g. `post-receive`) in `repo`, executable."""
    path = Path(hooks_dir(repo)) / name
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(script)
    tmp.chmod(tmp.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    tmp.replace(path)
