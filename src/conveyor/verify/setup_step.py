"""Setup for one tree: the shared environment when it serves the tree exactly, else its own.

With `commands.reuse_setup` (and an envs folder), setup runs once per key in the
shared environment (`verify.setup_env`) and the tree is given what it made. The
tree is set up on its own instead, and the setup's reason says why, when Conveyor
knows the shared environment would not test the tree's own code:

- the test command reached the shared copy of the code before (a canary fired,
  `verify.canary`): it drops the tree from PYTHONPATH (`python -I`, `env -i`, tox…);
- setup generated files inside the package and a file that is not Python source, a
  test or a non-code path changed since the build (a grammar, a `.pyx`, a `.proto`):
  what setup generated from it may be stale;
- setup made a build bound to its own tree (`verify.build_dirs`: cmake's out-of-source
  `build/`, whose CMakeCache.txt names the shared tree; a link into its sources): it
  would compile or load the shared tree's code, so no tree is given it.

An environment whose pointer files (`verify.env_facts`) changed since its build is
built again.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, replace
from pathlib import Path

from conveyor.core.paths import matches_any
from conveyor.core.test_runs import listing
from conveyor.core.verify import CommandResult, Outcome, skipped
from conveyor.git.plain import Tree
from conveyor.verify import canary, setup_env
from conveyor.verify.build_dirs import tree_bound
from conveyor.verify.context import Context
from conveyor.verify.env_facts import (
    differing,
    editable_roots,
    manifest,
    pointers_digest,
)
from conveyor.verify.setup_env import EnvRecord, SharedEnv

PYTHON_SOURCES = (".py", ".pyi")


@dataclass(frozen=True)
class Prepared:
    """A tree's setup: the command's result, and the shared environment it was given."""

    result: CommandResult
    shared: SharedEnv | None = None


def as_environment(result: CommandResult) -> CommandResult:
    """A setup that does not pass is an environment error: nothing after it can judge the change."""
    if result.ok:
        return result
    why = result.reason or f"the setup command failed (exit {result.exit_code})"
    return replace(result, outcome=Outcome.ENVIRONMENT, reason=why)


def _build(
    ctx: Context, name: str, tree: Tree, env_dir: Path
) -> tuple[CommandResult, EnvRecord | None]:
    command = ctx.commands.setup
    assert command is not None, "only a configured setup is built"
    build = setup_env.start_build(tree, env_dir)
    result = ctx.run(name, command, build.work, setup=True)
    if not result.ok:
        shutil.rmtree(env_dir, ignore_errors=True)
        return result, None
    made = setup_env.products(build)
    record = EnvRecord(
        products=made,
        nested=setup_env.nested_products(build),
        roots=editable_roots(build.work, made),
        pointers=pointers_digest(build.work, made),
        files=manifest(build),
        bound=tree_bound(build.work, made),
    )
    canary.plant(build, env_dir / canary.LOG, made)
    setup_env.finish_build(env_dir, record)
    return result, record


def _not_exact(ctx: Context, shared: SharedEnv, tree: Tree, command: str) -> str:
    """Why the shared environment would not test `tree`'s own code ("" when it would)."""
    if shared.record.bound:
        made = listing(shared.record.bound, limit=3)
        return f"setup made {made}: a build bound to the shared setup's tree, never shared"
    seen = canary.bypassed(shared.env_dir, command)
    if seen:
        return f"the test command reached the shared setup's copy of the code ({seen})"
    if not shared.record.nested:
        return ""
    globs = (*ctx.test_globs, *ctx.non_code)
    changed = differing(shared.record.files, manifest(tree))
    inputs = [p for p in changed if not p.endswith(PYTHON_SOURCES) and not matches_any(p, globs)]
    if not inputs:
        return ""
    made = listing(shared.record.nested, limit=3)
    return f"setup made {made} and {listing(inputs, limit=3)} changed since: they may be stale"


def prepare(ctx: Context, name: str, tree: Tree, command: str) -> Prepared:
    """Set `tree` up for running `command`: the shared environment, or in the tree itself."""
    setup = ctx.commands.setup
    if setup is None or ctx.envs_dir is None:
        return Prepared(as_environment(ctx.run(name, setup, tree.work, setup=True)))
    env_dir = ctx.envs_dir / setup_env.env_key(tree, setup, ctx.lockfiles)
    with setup_env.env_lock(env_dir):
        record = setup_env.ready_record(env_dir)
        if record is not None and record.pointers != pointers_digest(
            env_dir / "tree", record.products
        ):
            record = None  # something was installed into it since: build it again
        if record is None:
            result, record = _build(ctx, name, tree, env_dir)
            if record is None:
                return Prepared(as_environment(result))
        else:
            result = skipped(name, f"environment {env_dir.name[:12]} reused")
    shared = SharedEnv(env_dir, record)
    why = _not_exact(ctx, shared, tree, command)
    if why:
        return prepare_alone(ctx, name, tree, shared, why)
    setup_env.link_products(shared.build, record, tree)
    return Prepared(result, shared)


def prepare_alone(
    ctx: Context, name: str, tree: Tree, shared: SharedEnv | None, why: str
) -> Prepared:
    """Run setup in `tree` itself (its links into `shared` removed first); the reason says why."""
    if shared is not None:
        setup_env.unlink_products(shared.build, shared.record, tree.work)
    result = as_environment(ctx.run(name, ctx.commands.setup, tree.work, setup=True))
    return Prepared(replace(result, reason=f"set up in this tree: {why}") if result.ok else result)
