"""The registries a setup's own tools would reach, read from their configuration.

When `[sandbox] setup_network` names no hosts, setup may reach what its tools would use
outside the box: the tools are found in the setup command and the scripts it names
(pip, uv, poetry, pdm, pipenv, tox → the Python indexes; npm, yarn, pnpm, bun → the npm
registry; cargo → crates.io; go → its module proxy; bundle, gem → RubyGems), and each
one's registry is read where the tool reads it (`registry_config.py`): pip's
`index-url` and `extra-index-url` (`PIP_INDEX_URL`, pip.conf), uv's (`UV_INDEX_URL`,
`UV_DEFAULT_INDEX`, `UV_INDEX`, uv.toml, `[tool.uv]`), poetry's and pdm's sources,
npm's `registry` (`npm_config_registry`, `.npmrc`, `.yarnrc.yml`), `GOPROXY`. A tool
whose default index was not replaced gets its public one (PyPI's two hosts, npm's).
"""

from __future__ import annotations

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


def _texts(command: str, checkout: Path | None) -> list[str]:
    """The setup command, and the scripts and makefiles it names (their first 64 kB)."""
    found = [command]
    try:
        words = shlex.split(command, comments=True)
    except ValueError:
        words = command.split()
    files = [Path(w) for w in words if "/" in w or w.endswith((".sh", ".bash", ".py"))]
    if checkout is not None and any(w in ("make", "just") for w in words):
        files += [Path("Makefile"), Path("makefile"), Path("GNUmakefile"), Path("justfile")]
    for file in files:
        where = file if file.is_absolute() or checkout is None else checkout / file
        try:
            with where.open("rb") as handle:
                found.append(handle.read(SCRIPT_BYTES).decode(errors="replace"))
        except OSError:
            continue
    return found


def setup_tools(command: str, checkout: Path | None) -> set[str]:
    """Which ecosystems the setup uses: python, npm, yarn, cargo, go, ruby."""
    words = set()
    for text in _texts(command, checkout):
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
    tools = setup_tools(command, checkout)
    found = [
        Registry(host, "named on the setup's command line")
        for text in _texts(command, checkout)
        for url in FLAG_URL.findall(text)
        if (host := host_of(url)) is not None
    ]
    if "python" in tools:
        indexes, replaced = python_indexes(environ, checkout)
        found += _hosts(indexes, "Python")
        if not replaced:
            found += [Registry(h, "PyPI (the Python tools' default index)") for h in PYPI]
    if tools & {"npm", "yarn"}:
        registries, replaced = npm_registries(environ, checkout)
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
