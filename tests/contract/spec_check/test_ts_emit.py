"""SPEC-89 with the worktree's own TypeScript (issue 47, point 5): the emitted JavaScript of a
changed interface's file must not change; zod schemas may; a committed TypeScript is never
the judge."""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from conveyor.core.config import Commands
from conveyor.ops.local.ts_emit import NO_TYPESCRIPT, ts_type_only
from conveyor.verify.context import Context
from tests.contract.verify.repo_kit import GitRepo
from tests.e2e.languages.fixtures import cached_package, npm_cache

SHAPES = "export interface Shape {\n  area(): number;\n}\nexport const UNIT = 'cm';\n"
TYPED = SHAPES.replace("number;\n}", "number;\n  perimeter?(): number;\n}")
ZOD = "import { z } from 'zod';\nexport const Point = z.object({ x: z.number() });\n"


@pytest.fixture(scope="module")
def typescript(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A `node_modules` holding the TypeScript fixture's TypeScript, from the fixtures' cache."""
    folder = tmp_path_factory.mktemp("typescript")
    return cached_package(npm_cache(), "ts-jest", "typescript", folder)


def _context(tmp_path: Path, modules: Path | None) -> Context:
    repo = GitRepo.init(tmp_path / "checkout")
    repo.commit({"src/shapes.ts": SHAPES})
    if modules is not None:
        (repo.path / "node_modules").symlink_to(modules, target_is_directory=True)
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path)}
    return Context(repo.path, Commands(test="true"), env, tmp_path / "logs")


def test_a_member_added_to_an_interface_emits_the_same_javascript(
    tmp_path: Path, typescript: Path
) -> None:
    """Types and comments are erased: nothing runs differently."""
    verdict = ts_type_only(_context(tmp_path, typescript), "src/shapes.ts", SHAPES, TYPED)
    assert verdict.ok, verdict.reason


@pytest.mark.parametrize(
    "new",
    [
        SHAPES.replace("'cm'", "'mm'"),
        SHAPES + "export function area(s: Shape) { return s.area(); }\n",
        "import { Big } from './big';\n" + SHAPES,
        SHAPES + "export enum Unit { Cm }\n",
    ],
    ids=["a changed value", "a new function", "a value import", "an enum"],
)
def test_runtime_code_changes_the_emitted_javascript(
    tmp_path: Path, typescript: Path, new: str
) -> None:
    """A value, a function, a value import (kept, as SPEC-89 asks), an enum: refused."""
    verdict = ts_type_only(_context(tmp_path, typescript), "src/shapes.ts", SHAPES, new)
    assert not verdict.ok
    assert "JavaScript changes" in verdict.reason


def test_a_zod_schema_may_change_and_a_new_schema_may_come(
    tmp_path: Path, typescript: Path
) -> None:
    """SPEC-90: a call chain rooted at `z` is reduced before the comparison."""
    new = ZOD.replace("z.number() }", "z.number(), y: z.number().optional() }")
    new += "export const Size = z.object({ w: z.number() });\n"
    verdict = ts_type_only(_context(tmp_path, typescript), "src/point.ts", ZOD, new)
    assert verdict.ok, verdict.reason


def test_without_typescript_in_the_worktree_nothing_is_judged(tmp_path: Path) -> None:
    """No node_modules/typescript: an environment error of the commit check, not a pass."""
    verdict = ts_type_only(_context(tmp_path, None), "src/shapes.ts", SHAPES, TYPED)
    assert not verdict.ok
    assert NO_TYPESCRIPT in verdict.reason


def test_a_typescript_the_repository_tracks_is_never_the_judge(
    tmp_path: Path, typescript: Path
) -> None:
    """A change could commit a TypeScript that says 'same' to anything: it is not used."""
    ctx = _context(tmp_path, None)
    fake = ctx.checkout / "node_modules" / "typescript"
    fake.mkdir(parents=True)
    (fake / "package.json").write_text('{"name": "typescript", "main": "index.js"}')
    subprocess.run(["git", "-C", str(ctx.checkout), "add", "-f", "node_modules"], check=True)
    verdict = ts_type_only(ctx, "src/shapes.ts", SHAPES, SHAPES + "export const X = 1;\n")
    assert not verdict.ok
    assert NO_TYPESCRIPT in verdict.reason
    del typescript


def test_with_a_shared_setup_only_its_typescript_is_the_judge(
    tmp_path: Path, typescript: Path
) -> None:
    """A session may leave an untracked `node_modules/typescript` in the checkout whose
    compiler says "same" to anything: with shared setups only the one they made is used."""
    envs = tmp_path / "envs"
    (envs / "env-1" / "tree").mkdir(parents=True)
    shared = envs / "env-1" / "tree" / "node_modules"
    shared.symlink_to(typescript, target_is_directory=True)
    ctx = replace(_context(tmp_path, None), envs_dir=envs)
    fake = ctx.checkout / "node_modules" / "typescript"
    fake.mkdir(parents=True)
    (fake / "package.json").write_text('{"name": "typescript", "main": "index.js"}')
    (fake / "index.js").write_text("module.exports = {};\n")
    verdict = ts_type_only(ctx, "src/shapes.ts", SHAPES, SHAPES + "export const X = 1;\n")
    assert not verdict.ok
    assert NO_TYPESCRIPT in verdict.reason
    shutil.rmtree(ctx.checkout / "node_modules")
    (ctx.checkout / "node_modules").symlink_to(shared, target_is_directory=True)
    assert ts_type_only(ctx, "src/shapes.ts", SHAPES, TYPED).ok
