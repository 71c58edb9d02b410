"""Installing hooks in a repository (the emulator's post-receive, later the job's pre-push)."""

from __future__ import annotations

import stat
from collections.abc import Mapping
from pathlib import Path

from conveyor.git.runner import Repo, git_text


def hooks_dir(repo: Repo) -> str:
    """The hooks folder git uses for `repo` (absolute)."""
    return git_text(repo, "rev-parse", "--path-format=absolute", "--git-path", "hooks")


def install_hook(repo: Repo, name: str, script: str) -> None:
    """Write `script` as hook `name` (e.g. `post-receive`) in `repo`, executable."""
    install_hooks(repo, {name: script})


def install_hooks(repo: Repo, scripts: Mapping[str, str], folder: Path | None = None) -> None:
    """Write each script as the hook its key names, executable, in `folder` when the caller
    knows git's hooks folder, else in the one git names (one lookup)."""
    folder = folder or Path(hooks_dir(repo))
    folder.mkdir(parents=True, exist_ok=True)
    for name, script in scripts.items():
        path = folder / name
        tmp = path.with_suffix(".tmp")
        tmp.write_text(script)
        tmp.chmod(tmp.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        tmp.replace(path)
