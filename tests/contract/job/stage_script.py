"""A `conveyor job` with a stand-in stage runner, run as a script by the job contract tests.

Usage: `python stage_script.py CONFIG ISSUE STAGE BEHAVIOUR`. Behaviours:
`save`: save the state at the next stage and end; `boom`: raise;
`commit-wait`: commit a file locally, write `waiting` in the job folder,
then wait until interrupted.
The runner writes the checkout's HEAD to `head.txt` in the job folder first.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from conveyor.cli.config_load import load_config
from conveyor.core.state import IssueState, Stage
from conveyor.git import rev_parse
from conveyor.job.context import JobContext, StageEnd
from conveyor.job.main import JobOptions, run_job
from conveyor.ops.forge.state_store import fetch_state, save_state, state_of

NEXT = {Stage.TRIAGE: Stage.SPEC, Stage.SPEC: Stage.IMPLEMENT, Stage.IMPLEMENT: Stage.REVIEW}


def save(ctx: JobContext, state: IssueState) -> StageEnd:
    """Save the issue at the next stage."""
    (ctx.where.job_dir / "head.txt").write_text(rev_parse(ctx.where.git, "HEAD"))
    lookup = fetch_state(ctx.who.ops, ctx.what.issue)
    saved = state_of(lookup).model_copy(update={"stage": NEXT[state.stage]})
    save_state(ctx.who.ops, ctx.what.issue, saved, lookup)
    return StageEnd("saved", saved)


def commit_wait(ctx: JobContext, state: IssueState) -> StageEnd:
    """Commit locally (as a session would), then wait for an interrupt."""
    (ctx.where.job_dir / "head.txt").write_text(rev_parse(ctx.where.git, "HEAD"))
    (ctx.where.checkout / "notes.txt").write_text("work in progress\n")
    ctx.live.hub.set_check_reply(
        lambda _key, reply: [] if reply.get("ok") else ["ok: must be true"]
    )
    sha = ctx.live.hub.handlers().answer(
        {"op": "commit", "paths": ["notes.txt"], "message": "Notes"}
    )
    (ctx.where.checkout / "scratch.txt").write_text("not committed\n")
    # Atomically: the test waits for the file to exist, then reads the sha from it.
    (ctx.where.job_dir / "waiting.partial").write_text(str(sha.get("sha")))
    (ctx.where.job_dir / "waiting.partial").replace(ctx.where.job_dir / "waiting")
    deadline = time.monotonic() + 120
    while not ctx.interrupted() and time.monotonic() < deadline:
        time.sleep(0.05)
    return StageEnd("interrupted", state)


def boom(ctx: JobContext, state: IssueState) -> StageEnd:
    """Fail as a bug in a stage would."""
    msg = f"stand-in failure in {ctx.what.stage.value} at {state.stage.value}"
    raise RuntimeError(msg)


def main() -> int:
    """Run the job with the chosen stand-in runner."""
    config_path, issue, stage, behaviour = sys.argv[1:5]
    runners = {"save": save, "commit-wait": commit_wait, "boom": boom}
    opts = JobOptions(
        config=load_config(Path(config_path)),
        config_dir=Path(config_path).parent,
        issue=int(issue),
        stage=Stage(stage),
    )
    return run_job(opts, os.environ, runner=runners[behaviour])


if __name__ == "__main__":
    sys.exit(main())
