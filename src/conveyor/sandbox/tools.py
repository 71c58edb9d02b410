"""The read-only paths a box gives back so the owner's tools run inside it, each with why.

A box shows the system folders and nothing of the homes, so what a command runs from
elsewhere is given back read-only, resolved to where it is installed:

- the roots of the version managers and installers this machine has
  (`sandbox/toolchains.py`: pyenv, asdf, mise, nvm, fnm, volta, rustup, sdkman, uv's
  Pythons, pipx, poetry, Homebrew on Linux, conda, …) and cargo's `bin`;
- Conveyor's own interpreter, and the folders on PATH outside the system folders, with
  what their entries lead to (`sandbox/resolve.py`: symlinks, shebangs, a venv's base);
- each path a command names outside the checkout (a setup script under the system temp
  folder, an interpreter by its path), with what it leads to in turn;
- what `[sandbox] readable` adds.

Never given: the home itself, `~/.local` or `~/.config` whole, and nothing that is or
holds a `strict` path (Conveyor's home, its config folder, token files, the sockets the
environment names); nor anything inside a strict path.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from conveyor.sandbox.bwrap import TMP, host_system, plain
from conveyor.sandbox.command_words import Named, named_paths
from conveyor.sandbox.plan import Given
from conveyor.sandbox.resolve import Resolver
from conveyor.sandbox.system import in_system
from conveyor.sandbox.toolchains import cargo_bin, manager_roots

MAX_ENTRIES = 400  # a PATH folder's entries looked at, at most
# The box's own: a command naming `/dev/null` or `/proc/self/fd/1` names the box's, which a
# read-only bind of the host's over it would break (writes to /dev/null failed).
OWN = (Path("/dev"), Path("/proc"))


def _inside(path: Path, roots: Iterable[Path]) -> bool:
    return any(path.is_relative_to(r) for r in roots)


def _containers(environ: Mapping[str, str], strict: Iterable[Path]) -> frozenset[Path]:
    """The folders never given whole: the root, the homes, the XDG bases, `/tmp`, the strict."""
    found = [Path("/"), TMP]
    home = environ.get("HOME")
    if home:
        base = Path(home)
        found += [base, base.parent, base / ".local", base / ".local" / "share", base / ".config"]
        found += [base / ".cache", base / ".local" / "state"]
    found += [Path(environ[n]) for n in ("XDG_DATA_HOME", "XDG_CONFIG_HOME") if environ.get(n)]
    found += list(strict)
    return frozenset(p.resolve() for p in found if p.is_absolute())


@dataclass(frozen=True)
class Tools:
    """What a box gives back for the owner's tools, and what it would not give, with why."""

    given: tuple[Given, ...]
    refused: tuple[Given, ...]


HIDDEN_WHY = "is, holds or lies in a path no box sees (Conveyor's home, config, a token, a socket)"
WIDE_WHY = "is or holds a home, or more than one install"


def refusal(real: Path, strict: Iterable[Path], containers: Iterable[Path]) -> str | None:
    """Why `real` (resolved) may not be given to a box, or None."""
    if any(real.is_relative_to(s) or s.is_relative_to(real) for s in strict):
        return HIDDEN_WHY
    if any(c.is_relative_to(real) for c in containers):
        return WIDE_WHY
    return None


def check_caches(
    caches: Iterable[Path], environ: Mapping[str, str], strict: Iterable[Path]
) -> Tools:
    """`[sandbox] caches` a box may write (`given`), and those it may not (`refused`)."""
    strict = [p.resolve() for p in strict]
    containers = _containers(environ, strict)
    given, refused = [], []
    for path in caches:
        why = refusal(path.resolve(), strict, containers)
        if why is None:
            given.append(Given(path, "[sandbox] caches"))
        else:
            refused.append(Given(path, f"[sandbox] caches: {why}"))
    return Tools(tuple(given), tuple(refused))


class _Gathered:
    """The paths given so far, those refused, and what is seen anyway (system, given)."""

    def __init__(self, strict: Iterable[Path], containers: frozenset[Path]) -> None:
        self.given: dict[Path, Given] = {}
        self.refused: dict[Path, Given] = {}
        self.system = host_system()[0]
        self.strict = tuple(p.resolve() for p in strict)
        self.containers = containers

    def seen(self, path: Path) -> bool:
        real = path.resolve()
        return in_system(real, self.system) or any(real.is_relative_to(g) for g in self.given)

    def give(self, path: Path, why: str) -> None:
        real = path.resolve()
        if not real.exists() or self.seen(real) or _inside(real, OWN):
            return
        refused = refusal(real, self.strict, self.containers)
        if refused is not None:
            self.refused[real] = Given(path, f"{why}: {refused}")
        else:
            self.given[real] = Given(path, why)

    def named_as(self, path: Path, why: str) -> None:
        """A path seen anyway, named through a symlink elsewhere (fnm's PATH folder under
        the runtime folder): kept as named, so the box lays the symlink."""
        named = plain(path)
        if named != path.resolve() and not any(named.is_relative_to(s.path) for s in self.system):
            self.given.setdefault(path, Given(path, f"{why} (the symlink to it)"))


def find_tools(
    environ: Mapping[str, str],
    strict: Iterable[Path],
    *,
    commands: Iterable[str] = (),
    cwd: Path | None = None,
    readable: Iterable[Path] = (),
) -> Tools:
    """What a box gives back for the owner's tools, commands and `readable`, with why."""
    strict = list(strict)
    containers = _containers(environ, strict)
    gathered = _Gathered(strict, containers)
    resolver = Resolver(environ.get("PATH", ""), containers, gathered.seen)
    for path in readable:
        gathered.give(path, "[sandbox] readable")
    for root in manager_roots(environ):
        gathered.give(root.path, f"{root.manager.name}'s root (its tools and versions)")
    cargo = cargo_bin(environ)
    if cargo is not None:
        gathered.give(cargo, "cargo's bin (rustup's proxies, installed tools)")
    for prefix in dict.fromkeys((Path(sys.prefix), Path(sys.base_prefix))):
        gathered.give(prefix, "Conveyor's interpreter")
    _give_path(gathered, resolver, environ.get("PATH", ""))
    for command in commands:
        _give_named(gathered, resolver, named_paths(command, environ.get("HOME")), cwd)
    return Tools(tuple(gathered.given.values()), tuple(gathered.refused.values()))


def _give_path(gathered: _Gathered, resolver: Resolver, search: str) -> None:
    """The folders on PATH outside the system folders, and what their entries lead to."""
    for entry in search.split(os.pathsep):
        folder = Path(entry)
        if not entry or not folder.is_absolute() or not folder.is_dir():
            continue
        if gathered.seen(folder):
            gathered.named_as(folder, "a folder on PATH")
            continue
        gathered.give(folder, "a folder on PATH")
        if folder.resolve() not in gathered.given:
            continue
        for tool in _entries(folder):
            for hop in resolver.follow(tool, f"{tool} on PATH leads there"):
                gathered.give(hop.path, hop.why)


def _give_named(
    gathered: _Gathered, resolver: Resolver, paths: Iterable[Named], cwd: Path | None
) -> None:
    """The paths a command names outside the checkout, and what they lead to; in `/tmp`
    (the box's own, writable) only what it runs, so an output path there stays writable."""
    for each in paths:
        named = each.path
        if cwd is not None and named.is_relative_to(cwd):
            continue
        if named.is_relative_to(TMP) and not each.runs:
            continue
        if named.is_dir():
            gathered.give(named, f"a command names {named}")
            continue
        if not named.exists() and named.parent.is_dir():
            # A file the command waits for or reads later: its folder, as it will be then.
            gathered.give(named.parent, f"a command names {named} in it")
            continue
        for hop in resolver.follow(named, f"a command names {named}"):
            gathered.give(hop.path, hop.why)


def _entries(folder: Path) -> list[Path]:
    try:
        with os.scandir(folder) as found:
            return [Path(e.path) for _, e in zip(range(MAX_ENTRIES), found, strict=False)]
    except OSError:
        return []


def tool_paths(environ: Mapping[str, str], hidden: Iterable[Path]) -> tuple[Path, ...]:
    """The paths `find_tools` gives back, with `hidden` strict but the owner's home."""
    home = Path(environ["HOME"]).resolve() if environ.get("HOME") else None
    strict = [p for p in hidden if p.resolve() != home]
    return tuple(g.path for g in find_tools(environ, strict).given)
