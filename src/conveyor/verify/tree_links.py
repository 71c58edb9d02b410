"""Conveyor's own writes into a tree, and copies out of it, never go through the tree's links.

A checkout, a temporary worktree and a shared setup's build are written by agents and by
boxed commands: a file or a folder there may be a link (committed as one, or made by a
setup command) to anywhere on the machine. Conveyor copies files out of such a tree and
writes into it outside every box, so each of those paths is checked to lie in the tree once
its links are followed, or its links are replaced by files and folders of the tree's own.
(A command racing Conveyor in the same tree could still swap a folder for a link between
the check and the write; verify runs none in a tree while it writes there.)
"""

from __future__ import annotations

from pathlib import Path


def inside(root: Path, path: Path) -> bool:
    """Whether `path`, every link on the way followed, lies in the folder `root`."""
    return path.resolve().is_relative_to(root.resolve())


def write_own(root: Path, rel: str, text: str | None) -> None:
    """Make `rel` in `root` a file of the tree's own holding `text` (None: no file there).

    A link in its way (one of its folders, or the file itself) is replaced by a folder or a
    file of the tree's, so the write lands in the tree; with None, a file behind a linked
    folder is no file of the tree, and nothing is removed.
    """
    here = root
    for part in Path(rel).parts[:-1]:
        here = here / part
        if here.is_symlink():
            if text is None:
                return
            here.unlink()
        here.mkdir(exist_ok=True)
    target = root / rel
    if text is None or target.is_symlink():
        target.unlink(missing_ok=True)
    if text is not None:
        target.write_text(text, encoding="utf-8")
