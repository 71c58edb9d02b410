"""Where an executable's install lies: through its symlinks, its shebang, its venv's base.

`~/.local/bin/black` is a link into pipx's venv, whose `python` is a link to a pyenv
version; a console script's shebang names its venv's interpreter; a venv's `pyvenv.cfg`
names the Python it was made from. Each hop is followed to the folder the tool is
installed in (`install_root`), which the box gives back read-only. A folder that holds
more than one tool's install (the home, `~/.local`, `~/.local/share`, a folder the box
hides or one holding a hidden path) is never given: the file itself is.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

MAX_HOPS = 8
SHEBANG_BYTES = 256


@dataclass(frozen=True)
class Hop:
    """One install a resolution reached, and how (`why`)."""

    path: Path
    why: str


@dataclass(frozen=True)
class Resolver:
    """Resolves executables against one machine: its PATH, the folders never given whole
    (`containers`), and what is seen anyway (`seen`: the system folders, roots already given)."""

    path: str
    containers: frozenset[Path]
    seen: Callable[[Path], bool]

    def too_wide(self, folder: Path) -> bool:
        """Whether `folder` is or holds a container (more than one install, or a hidden path)."""
        return any(c.is_relative_to(folder) for c in self.containers)

    def install_root(self, file: Path) -> Path:
        """The folder `file` is installed in: its venv, the folder above its `bin`, its own
        folder, or (inside a folder too wide to give) the file alone."""
        folder = file.parent
        if folder.name == "bin" and not self.too_wide(folder.parent):
            return folder.parent
        return file if self.too_wide(folder) else folder

    def which(self, name: str) -> Path | None:
        found = shutil.which(name, path=self.path)
        return Path(found) if found else None

    def follow(self, start: Path, why: str) -> Iterator[Hop]:
        """Every install `start` leads to that is not seen anyway, each once."""
        pending, done = [(start, why)], set[Path]()
        while pending and len(done) < MAX_HOPS:
            file, how = pending.pop()
            if file in done or not file.exists():
                continue
            done.add(file)
            for step in _link_chain(file):
                if not self.seen(step):
                    yield Hop(self.install_root(step), how)
            real = file.resolve()
            venv = _venv_base(real)
            if venv is not None:
                pending.append((venv, f"the Python {real.parent.parent} was made from"))
            interpreter = self._shebang(real)
            if interpreter is not None:
                pending.append((interpreter, f"the interpreter {real.name}'s shebang names"))

    def _shebang(self, file: Path) -> Path | None:
        """The interpreter a script's `#!` line names (`/usr/bin/env NAME`: NAME on PATH)."""
        try:
            with file.open("rb") as handle:
                head = handle.read(SHEBANG_BYTES)
        except OSError:
            return None
        if not head.startswith(b"#!"):
            return None
        words = head[2:].split(b"\n", 1)[0].decode(errors="replace").split()
        if not words:
            return None
        if Path(words[0]).name == "env":
            names = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
            return self.which(names[0]) if names else None
        return Path(words[0])


def _link_chain(file: Path) -> Iterator[Path]:
    """`file` and each file its symlinks lead to, in order (absolute, not resolved)."""
    here = Path(os.path.normpath(file.absolute()))
    for _ in range(MAX_HOPS):
        yield here
        if not here.is_symlink():
            return
        here = Path(os.path.normpath(here.parent / here.readlink()))
    yield here.resolve()


def _venv_base(python: Path) -> Path | None:
    """The base interpreter of the venv `python` lies in (its `pyvenv.cfg`'s `home`)."""
    config = python.parent.parent / "pyvenv.cfg"
    if python.parent.name != "bin" or not config.is_file():
        return None
    try:
        lines = config.read_text(errors="replace").splitlines()
    except OSError:
        return None
    for line in lines:
        key, _, value = line.partition("=")
        if key.strip() == "home" and value.strip():
            base = Path(value.strip()) / python.name
            return base if base.exists() else Path(value.strip()) / "python3"
    return None
