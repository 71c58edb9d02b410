"""The registries a setup's own tools would reach, read from their configuration.

When `[sandbox] setup_network` names no hosts, setup may reach what its tools would use
outside the box: the tools are found in the setup command and the scripts and makefiles
it names (pip, uv, poetry, pdm, pipenv, tox → the Python indexes; npm, yarn, pnpm, bun →
the npm registry; cargo → crates.io; go → its module proxy; bundle, gem → RubyGems), and
each one's registry is read where the tool reads it on the owner's side
(`registry_config.py`): pip's `index-url` and `extra-index-url` (`PIP_INDEX_URL`,
pip.conf), uv's (`UV_INDEX_URL`, `UV_DEFAULT_INDEX`, `UV_INDEX`, uv.toml), npm's
`registry` (`npm_config_registry`, `~/.npmrc`), `GOPROXY`, and an index the command
line (or a script of the owner's, outside the checkout) names. A tool whose default
index was not replaced gets its public one (PyPI's two hosts, npm's).

No host is ever taken from a file in the checkout: an agent writes those, and a host it
names there would become a door out of setup's box for every later job. The checkout
only says which tools setup uses, which adds nothing but their public registries; a
project's own `.npmrc` or `[tool.uv.index]` registry goes in `setup_network` (the
failed setup names it, with that line).
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from conveyor.sandbox.registry_config import (
    go_proxies,
    npm_registries,
    python_indexes,
)

SCRIPT_BYTES = 65536
PYTHON_TOOLS = frozenset(
    {"pip", "pip3", "uv", "uvx", "poetry", "pdm", "pipenv", "hatch", "tox", "nox", "pipx"}
)
NPM_TOOLS = frozenset({"npm", "npx", "yarn", "pnpm", "bun", "corepack"})
PYPI = ("pypi.org", "files.pythonhosted.org")
NPMJS = ("registry.npmjs.org",)
YARN = ("registry.yarnpkg.com",)
CRATES = ("index.crates.io", "static.crates.io", "crates.io")
RUBYGEMS = ("rubygems.org", "index.rubygems.org")
WORD = re.compile(r"[A-Za-z0-9_.+-]+")
# An index or registry named on the command line (pip, uv, npm, yarn, pnpm).
FLAG_URL = re.compile(
    r"(?:--(?:extra-)?index-url|--default-index|--index|--find-links|--registry|-i|-f)"
    r"[=\s]+['\"]?(https?://[^\s'\"]+)"
)


@dataclass(frozen=True)
class Registry:
    """One host setup may reach, and why (which tool, read from where)."""

    host: str
    why: str


def host_of(url: str) -> str | None:
    """The allowlist entry of a URL: its host, with its port when not the scheme's own."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    default = 443 if parts.scheme == "https" else 80
    try:
        port = parts.port
    except ValueError:
        return None
    return parts.hostname if port in (None, default) else f"{parts.hostname}:{port}"


def _texts(command: str, checkout: Path | None) -> tuple[list[str], list[str]]:
    """The setup command and the scripts it names outside the checkout (the owner's), and
    the scripts and makefiles it names inside the checkout (their first 64 kB each)."""
    owner: list[str] = [command]
    project: list[str] = []
    try:
        words = shlex.split(command, comments=True)
    except ValueError:
        words = command.split()
    files = [Path(w) for w in words if "/" in w or w.endswith((".sh", ".bash", ".py"))]
    if checkout is not None and any(w in ("make", "just") for w in words):
        files += [Path("Makefile"), Path("makefile"), Path("GNUmakefile"), Path("justfile")]
    for file in files:
        where = file if file.is_absolute() or checkout is None else checkout / file
        # The checkout's own when the path as written or where its links lead lies in it: a
        # link the checkout commits may name a file outside whose text an agent wrote.
        inside = checkout is not None and (
            Path(os.path.normpath(where.absolute())).is_relative_to(checkout.absolute())
            or where.resolve().is_relative_to(checkout.resolve())
        )
        try:
            with where.open("rb") as handle:
                text = handle.read(SCRIPT_BYTES).decode(errors="replace")
        except OSError:
            continue
        (project if inside else owner).append(text)
    return owner, project


def setup_tools(command: str, checkout: Path | None) -> set[str]:
    """Which ecosystems the setup uses: python, npm, yarn, cargo, go, ruby."""
    owner, project = _texts(command, checkout)
    return _tools([*owner, *project])


def _tools(texts: Iterable[str]) -> set[str]:
    words = set()
    for text in texts:
        words |= {Path(w).name for w in WORD.findall(text)}
    found = set()
    if words & PYTHON_TOOLS:
        found.add("python")
    if words & NPM_TOOLS:
        found.add("npm")
    if "yarn" in words:
        found.add("yarn")
    found |= {name for name, tool in (("cargo", "cargo"), ("go", "go")) if tool in words}
    if words & {"bundle", "bundler", "gem"}:
        found.add("ruby")
    return found


def _hosts(urls: Iterable[tuple[str, str]], tool: str) -> list[Registry]:
    found = []
    for url, where in urls:
        host = host_of(url)
        if host is not None:
            found.append(Registry(host, f"{tool}'s index ({where})"))
    return found


def setup_registries(
    command: str | None, environ: Mapping[str, str], checkout: Path | None
) -> tuple[Registry, ...]:
    """The registries the setup command's tools would reach, each with why."""
    if not command:
        return ()
    owner, project = _texts(command, checkout)
    tools = _tools([*owner, *project])
    found = [
        Registry(host, "named on the setup's command line or in the owner's script")
        for text in owner
        for url in FLAG_URL.findall(text)
        if (host := host_of(url)) is not None
    ]
    if "python" in tools:
        indexes, replaced = python_indexes(environ)
        found += _hosts(indexes, "Python")
        if not replaced:
            found += [Registry(h, "PyPI (the Python tools' default index)") for h in PYPI]
    if tools & {"npm", "yarn"}:
        registries, replaced = npm_registries(environ)
        found += _hosts(registries, "npm")
        if not replaced:
            public = (*NPMJS, *(YARN if "yarn" in tools else ()))
            found += [Registry(h, "npm's default registry") for h in public]
    if "cargo" in tools:
        found += [Registry(h, "crates.io (cargo's default registry)") for h in CRATES]
    if "go" in tools:
        found += _hosts(go_proxies(environ), "Go")
    if "ruby" in tools:
        found += [Registry(h, "RubyGems (bundler's default source)") for h in RUBYGEMS]
    first: dict[str, Registry] = {}
    for registry in found:
        first.setdefault(registry.host, registry)
    return tuple(first.values())
