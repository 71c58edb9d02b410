"""Where a config may live: outside any git work tree, so no agent can edit the rules
that judge its work. `init` refuses to write one inside a repository; `config check` and
`doctor` refuse to pass one found there."""

from __future__ import annotations

from pathlib import Path


def repository_around(path: Path) -> Path | None:
    """The git work tree `path` is (or would be written) in, if any."""
    for folder in (path.parent, *path.parent.parents):
        if _is_work_tree(folder):
            return folder
    return None


def _is_work_tree(folder: Path) -> bool:
    """Whether `folder` holds a repository: a `.git` file (a linked work tree) or a `.git`
    folder with a HEAD. An empty `.git` is not one: codex's sandbox makes `/tmp/.git` empty
    for the length of a session, to mount it read-only."""
    git = folder / ".git"
    return git.is_file() or (git / "HEAD").is_file()


def inside_repository(path: Path, shown: Path | str | None = None) -> str | None:
    """The mistake of a config at `path` inside a git repository, named (as `shown`), or None."""
    inside = repository_around(path.expanduser().resolve())
    if inside is None:
        return None
    return (
        f"{shown or path}: inside the git repository {inside}; agents could change the rules"
        " that judge their work: move it outside any repository"
    )
