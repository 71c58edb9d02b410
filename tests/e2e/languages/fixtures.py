"""The fixture repositories in other languages (`tests/fixtures/langs/<name>/`), made worlds.

Each fixture has `base/` (the repository at the base), `spec/` (the files the spec writer
writes: failing tests, and stubs or declarations) and `fix/` (the implementer's: the fix
and a test of its own, so fails-before-fix runs rather than standing on the spec check's).
A fixture whose toolchain is missing is skipped, saying which; the npm packages of the
JavaScript and TypeScript fixtures come from the cache `scripts/install-node-fixtures`
fills (`make test` runs it), seeded into the world's npm cache: setup installs offline.
"""

from __future__ import annotations

import base64
import errno
import json
import os
import shutil
import subprocess
import tarfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from conveyor.emulator.app.server import ForgeServer
from conveyor.testing.world import World
from tests.e2e.back.merge_helpers import FAST

ROOT = Path(__file__).parents[2] / "fixtures" / "langs"
REPO = Path(__file__).parents[3]
NPM_CI = "npm ci --offline --ignore-scripts --no-audit --no-fund"
_GIT = ["git", "-c", "user.name=p", "-c", "user.email=p@p", "-c", "core.hooksPath=/dev/null"]


def files(name: str, part: str) -> dict[str, str]:
    """The files of one part (`base`, `spec`, `fix`) of fixture `name`, by path."""
    folder = ROOT / name / part
    return {
        str(p.relative_to(folder)): p.read_text(encoding="utf-8")
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def git_fixture(name: str, dest: Path, extra: Mapping[str, str] | None = None) -> Path:
    """Fixture `name`'s base (with `extra` files) as a git repository with one commit."""
    shutil.copytree(ROOT / name / "base", dest)
    for path, text in (extra or {}).items():
        (dest / path).parent.mkdir(parents=True, exist_ok=True)
        (dest / path).write_text(text, encoding="utf-8")
    subprocess.run([*_GIT, "init", "-q", "-b", "main"], cwd=dest, check=True)
    subprocess.run([*_GIT, "add", "-A"], cwd=dest, check=True)
    subprocess.run([*_GIT, "commit", "-q", "-m", f"The {name} project"], cwd=dest, check=True)
    return dest


def need(*tools: str) -> None:
    """Skip the test, naming the tools that are not installed here."""
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed: this ecosystem's fixture cannot run")


def npm_cache() -> Path:
    """The npm cache holding the fixtures' packages; skipped outside CI when not filled."""
    need("node", "npm")
    script = REPO / "scripts" / "install-node-fixtures"
    done = subprocess.run([str(script), "--cache-dir"], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        why = "the fixtures' npm packages are not cached: run scripts/install-node-fixtures"
        if os.environ.get("CI") == "true":
            pytest.fail(why)
        pytest.skip(why)
    return Path(done.stdout.strip())


def cached_package(cache: Path, fixture: str, name: str, dest: Path) -> Path:
    """Package `name` as fixture `fixture`'s lockfile pins it, unpacked from the npm cache's
    content (by its integrity) into `dest/node_modules/name`, without npm."""
    lock = json.loads((ROOT / fixture / "base" / "package-lock.json").read_text())
    algorithm, digest = lock["packages"][f"node_modules/{name}"]["integrity"].split("-", 1)
    hexed = base64.b64decode(digest).hex()
    tarball = cache / "_cacache" / "content-v2" / algorithm / hexed[:2] / hexed[2:4] / hexed[4:]
    target = dest / "node_modules" / name
    with tarfile.open(tarball) as archive:
        for member in archive.getmembers():
            name = member.name.removeprefix("package/")
            if member.isfile() and name != member.name and ".." not in name.split("/"):
                member.name = name
                archive.extract(member, target)
    return target.parent


def seed_npm(world: World, cache: Path) -> None:
    """Give the world's shared npm cache the fixtures' packages (content linked, index copied).

    The content is linked where the cache and the test's folder share a file system and copied
    where they do not (CI puts the tests' scratch folder on a tmpfs: a link there fails EXDEV).
    """
    target = world.repo_home / "cache" / "npm"

    def link(source: str, dest: str) -> None:
        if "index-v5" in source:
            shutil.copy2(source, dest)
            return
        try:
            os.link(source, dest)
        except OSError as error:
            if error.errno != errno.EXDEV:
                raise
            shutil.copy2(source, dest)

    shutil.copytree(cache, target, copy_function=link, ignore=shutil.ignore_patterns("_logs"))


def language_world(
    server: ForgeServer,
    tmp_path: Path,
    name: str,
    *,
    commands: Mapping[str, Any],
    extra: Mapping[str, str] | None = None,
    config: Mapping[str, Any] | None = None,
) -> World:
    """A World on fixture `name` (its base, with `extra` files), with these commands."""
    source = git_fixture(name, tmp_path / name, extra)
    merged = {**FAST, "commands": {"timeout_seconds": 300, **commands}, **(config or {})}
    return World.create(server, tmp_path / "world", config=merged, src=source)


def interface(name: str, where: str, status: str, signature: str, behaviour: str) -> dict[str, Any]:
    """One entry of the spec writer's `interfaces`, covering the spec's `behaviour`."""
    return {
        "name": name,
        "kind": "function",
        "where": where,
        "status": status,
        "signature": signature,
        "behaviours": [behaviour],
    }
