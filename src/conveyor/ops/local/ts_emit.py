"""SPEC-89: whether a TypeScript change is type-only, by the worktree's own TypeScript.

The file's JavaScript (`transpileModule`, types and comments erased, value imports kept,
zod schemas reduced: `ts_emit.js`) must be the same before and after. The TypeScript is
the tree's `node_modules/typescript` (set up by the repository's setup when the tree lacks
it), never one the change itself commits, and with a shared setup only the one that setup
made (a session may leave a `node_modules` of its own in the checkout, untracked, whose
"compiler" says "same" to anything; a planted folder also keeps setup's link out); without
one the change cannot be judged, an environment error of the commit check (the reference
fails the change: that would charge the spec writer for the machine's lack). It runs as
any command does, in the job's box.
"""

from __future__ import annotations

import os
import shlex
import shutil
from pathlib import Path

from conveyor.core.typeonly import Verdict
from conveyor.git import plain
from conveyor.git.plain import Tree
from conveyor.verify import setup_step
from conveyor.verify.context import Context
from conveyor.verify.reports import REPORTS

SCRIPT = Path(__file__).with_name("ts_emit.js")
# The start of the reason when the worktree has no TypeScript: the machine's lack, which the
# commit check reports as an environment error, never as the spec writer's finding.
NO_TYPESCRIPT = "no TypeScript in the worktree"
_MODULE = "node_modules/typescript"


def _typescript(tree: Tree, envs_dir: Path | None) -> Path | None:
    """The tree's TypeScript, unless the repository tracks it (the change could write it) or,
    with shared setups (`envs_dir`), it is not theirs (a session could have written it)."""
    module = tree.work / _MODULE
    if not (module / "package.json").is_file():
        return None
    if envs_dir is not None and not _linked_into(tree.work / "node_modules", envs_dir):
        return None
    if plain.git(tree, "ls-files", "--", _MODULE).strip():
        return None
    return module


def _linked_into(link: Path, folder: Path) -> bool:
    """Whether `link` is a symbolic link into `folder` (as setup links its products)."""
    if not link.is_symlink():
        return False
    target = Path(os.path.normpath(link.parent / link.readlink()))
    return target.is_relative_to(Path(os.path.normpath(folder.absolute())))


def _find_typescript(ctx: Context) -> Path | None:
    found = _typescript(ctx.tree, ctx.envs_dir)
    if found is None and ctx.commands.setup is not None:
        setup_step.prepare(ctx, "spec typescript setup", ctx.tree, ctx.commands.test)
        found = _typescript(ctx.tree, ctx.envs_dir)
    return found


def ts_type_only(ctx: Context, path: str, old: str, new: str) -> Verdict:
    """Whether `path`'s change from `old` to `new` emits the same JavaScript."""
    module = _find_typescript(ctx)
    if module is None:
        return Verdict(False, f"{NO_TYPESCRIPT} (node_modules/typescript) to read it with")
    work = ctx.logs_dir / REPORTS / "ts-emit"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    script = work / SCRIPT.name
    shutil.copyfile(SCRIPT, script)
    files = []
    for label, text in (("old", old), ("new", new)):
        (work / f"{label}.ts").write_text(text, encoding="utf-8")
        files += [str(work / f"{label}.ts"), str(work / f"{label}.js")]
    argv = ["node", str(script), str(module.resolve()), Path(path).name, *files]
    run = ctx.run("spec typescript", shlex.join(argv), ctx.checkout)
    if not run.ok:
        return Verdict(False, f"the worktree's TypeScript could not read it: {run.tail[-300:]}")
    before = (work / "old.js").read_text(encoding="utf-8")
    after = (work / "new.js").read_text(encoding="utf-8")
    if before == after:
        return Verdict(True)
    return Verdict(False, "its JavaScript changes: it adds or alters runtime code, not only types")
