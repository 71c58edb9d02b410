"""Running a judge with the judges' configuration: a worktree at the head with it put back.

`put` maps each path to the text the judges' tree has there (None: no such file). Lint and
typecheck run after the tree's setup; the suite runs as verify's own (`verify.suites`). The
runs are logged `judges setup`, `judges lint`, `judges typecheck`, `judges test`. Verify
runs them one at a time, after the checkout's commands and fails-before-fix are done.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from conveyor.core.verify import CommandResult
from conveyor.git.plain import Tree
from conveyor.verify import setup_step
from conveyor.verify.context import Context
from conveyor.verify.suites import Suite, in_worktree, worktree
from conveyor.verify.tree_links import write_own

LABEL = "judges"


def _write(tree: Tree, put: Mapping[str, str | None]) -> None:
    """The judges' files over the worktree, as files of its own: the head may have made any
    of them, or a folder of theirs, a link to a file outside."""
    for path, text in put.items():
        write_own(tree.work, path, text)


def suite_with_judges(ctx: Context, head: str, put: Mapping[str, str | None]) -> Suite:
    """Setup and the test command at `head` with `put` written over it."""
    return in_worktree(ctx, head, LABEL, lambda tree: _write(tree, put))


def checks_with_judges(
    ctx: Context, head: str, put: Mapping[str, str | None], names: Sequence[str]
) -> tuple[CommandResult, ...]:
    """Setup, then each of `names` (`lint`, `typecheck`) at `head` with `put` written over it."""
    commands: dict[str, str | None] = {
        "lint": ctx.commands.lint,
        "typecheck": ctx.commands.typecheck,
    }
    with worktree(ctx, head, LABEL) as tree:
        _write(tree, put)
        return _run(ctx, tree, commands, names)


def _run(
    ctx: Context, tree: Tree, commands: Mapping[str, str | None], names: Sequence[str]
) -> tuple[CommandResult, ...]:
    wanted = [(n, commands[n]) for n in names if commands.get(n)]
    if not wanted:
        return ()
    prepared = setup_step.prepare(ctx, f"{LABEL} setup", tree, wanted[0][1] or "")
    if not prepared.result.ok:
        return (prepared.result,)
    return tuple(ctx.run(f"{LABEL} {name}", command, tree.work) for name, command in wanted)
