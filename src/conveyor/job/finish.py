"""What every job exit does (JB-12, JB-13, JOB-4): lost changes, exit push, lease, cleanup."""

from __future__ import annotations

import secrets
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from conveyor.git.checkout import dirty_paths
from conveyor.git.refs import try_rev_parse
from conveyor.git.rescue import rescue_ref
from conveyor.git.runner import GitError
from conveyor.job.assemble import Started, now_utc
from conveyor.job.context import JobContext
from conveyor.job.effects.push import take_agent_heads, unpushed_head
from conveyor.job.jobfile import Outcome
from conveyor.job.ledger import save_job_sessions
from conveyor.job.roles import JobRole
from conveyor.job.view_file import write_view
from conveyor.ops.forge.context import OpContext
from conveyor.ops.forge.state_store import fetch_state, save_state, state_of
from conveyor.ops.local.wiki_branch import push_wiki


def _say(text: str) -> None:
    print(f"conveyor job: {text}", file=sys.stderr)  # noqa: T201 - the job's stderr is its log


def record_lost_changes(ctx: JobContext) -> list[str]:
    """Add the checkout's uncommitted paths to job.json `lost_changes` (JB-12); returns them."""
    try:
        dirty = dirty_paths(ctx.where.git) if ctx.where.checkout.is_dir() else []
        wiki = ctx.where.wiki
        if wiki is not None and wiki.repo.path.is_dir():
            dirty += [f"{wiki.dir}/{p}" for p in dirty_paths(wiki.repo)]
    except GitError as exc:
        _say(f"cannot list uncommitted paths: {exc}")
        dirty = []
    if dirty:
        ctx.live.job_file.set_lost_changes([*ctx.live.job_file.record.lost_changes, *dirty])
    return dirty


def push_local_commits(ctx: JobContext) -> str | None:
    """Push a writer's commits the remote lacks; an error text when they stay only local.

    Onto `agent/issue-N` fast-forward only when the remote has that branch,
    else (or when that fails) as a rescue ref, so removing the checkout loses
    nothing. The runner may call it before a stop, to say so in the stop comment.
    """
    if ctx.live.role is not JobRole.WRITER or not ctx.where.checkout.is_dir():
        return None
    head = unpushed_head(ctx.where.git)
    if head is None:
        return None
    error = ""
    if try_rev_parse(ctx.where.git, f"refs/remotes/origin/{ctx.what.branch}") is not None:
        result = ctx.who.push(head, ctx.what.branch_ref)
        if result.ok:
            ctx.live.events.emit("pushed", ref=ctx.what.branch_ref, sha=head, exit_push=True)
            return None
        error = result.error or "the push was refused"
    ref = rescue_ref(ctx.what.issue, ctx.live.now())
    saved = ctx.who.push(head, ref, force=True)
    if saved.ok:
        ctx.live.events.emit("pushed", ref=ref, sha=head, exit_push=True)
        return error or None
    _say(f"could not push {head} ({error or saved.error}); the commits are only local")
    return error or saved.error or "the push was refused"


def push_wiki_commits(ctx: JobContext) -> None:
    """Push a writer's wiki commits the wiki's `agent/issue-N` lacks (WT-9, JB-12)."""
    wiki = ctx.where.wiki
    if ctx.live.role is not JobRole.WRITER or wiki is None or not wiki.repo.path.is_dir():
        return
    pushed = push_wiki(wiki)
    if pushed is None:
        return
    if pushed.ok:
        ctx.live.events.emit("pushed", ref=f"wiki:{pushed.ref}", sha=pushed.sha, exit_push=True)
    else:
        _say(f"could not push the wiki's {wiki.branch} ({pushed.error}); its commits are local")


def clear_lease(ops: OpContext, issue: int, lane: str) -> None:
    """Save the issue at its stage with the lease cleared (JOB-4: not `release`)."""
    lookup = fetch_state(ops, issue)
    state = state_of(lookup)
    if state.lease is not None and state.lease.lane == lane:
        save_state(ops, issue, state.model_copy(update={"lease": None}), lookup)


TRASH = "trash"  # `<home>/trash/`: folders a job has let go of, deleted in the background
# Deletes every entry of the trash folder ($1): the job's own and any a killed sweep left.
_SWEEP = 'rm -rf -- "$1"/* </dev/null >/dev/null 2>&1 &'


def discard(folder: Path, home: Path) -> None:
    """Remove `folder` without waiting for the deletion (a checkout with its venv is
    thousands of files; the next job need not wait for them).

    It is moved into `<home>/trash/` at once, so nothing finds it where it was, and a `sh`
    that returns at once leaves an `rm -rf` of the trash running on its own. Where the move
    or the start fails, it is deleted here.
    """
    if not folder.exists():
        return
    trash = home / TRASH
    target = trash / f"{folder.parent.name}-{folder.name}-{secrets.token_hex(4)}"
    try:
        trash.mkdir(exist_ok=True)
        folder.rename(target)
    except OSError:
        shutil.rmtree(folder, ignore_errors=True)
        return
    try:
        subprocess.run(["sh", "-c", _SWEEP, "sh", str(trash)], check=True)
    except (OSError, subprocess.CalledProcessError):
        shutil.rmtree(target, ignore_errors=True)


def remove_checkout(ctx: JobContext) -> None:
    """Remove `repo/` (in the background: `discard`); job.json and sessions/ stay."""
    discard(ctx.where.checkout, ctx.where.home)


STAGE_ENDED = frozenset({"saved", "stopped", "asked", "split", "merged", "released"})


def finish_job(started: Started, ctx: JobContext | None, outcome: Outcome) -> int:
    """The exit path of every claimed job; returns the exit code (0 ended, 1 otherwise).

    Uncommitted paths go to lost_changes, a writer's unpushed commits are pushed,
    an interrupted or failed job saves the issue at its stage with the lease
    cleared, job.json records the outcome, and `repo/` is removed.
    """
    interrupted = started.hub.interrupted.is_set() or outcome == "interrupted"
    if ctx is not None:
        _guarded("take the agent's commits", lambda: _take_agent_heads(ctx))
        _guarded("record lost changes", lambda: record_lost_changes(ctx))
        _guarded("push local commits", lambda: push_local_commits(ctx))
        _guarded("push wiki commits", lambda: push_wiki_commits(ctx))
    if outcome not in STAGE_ENDED or interrupted:
        _guarded("clear the lease", lambda: clear_lease(started.ops, started.issue, started.lane))
        started.events.emit("released", lease="cleared", outcome=outcome)
    started.job_file.finish(outcome)
    if outcome in STAGE_ENDED and not interrupted:
        _guarded("write the issue's view", lambda: _write_view(started))
    _guarded(
        "write the ledger", lambda: save_job_sessions(started.paths.home, started.job_file.record)
    )
    if ctx is not None:
        remove_checkout(ctx)
    else:
        discard(started.paths.checkout, started.paths.home)
    return 0 if outcome in STAGE_ENDED else 1


def _take_agent_heads(ctx: JobContext) -> None:
    """A writer's last session may have been cut short before its commits were taken."""
    if ctx.live.role is JobRole.WRITER and ctx.where.checkout.is_dir():
        wiki = ctx.where.wiki.repo if ctx.where.wiki is not None else None
        failed = take_agent_heads(ctx.where.git, wiki)
        if failed:
            _say(f"the last session's commits were not taken: {failed}")


def _write_view(started: Started) -> None:
    started.paths.run_dir.mkdir(parents=True, exist_ok=True)
    write_view(started.paths.run_dir, started.ops, started.issue, started.paths.job_id, now_utc())


def _guarded(what: str, step: Callable[[], object]) -> None:
    try:
        step()
    except Exception as exc:  # noqa: BLE001 - one failed exit step must not skip the others
        _say(f"could not {what}: {exc}")
