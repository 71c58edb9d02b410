"""A review job's context: the PR's checkout, its `issue.md`, its inputs, and the same
`JobContext` a stage job's sessions run under (box, environment, hub, job file)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from conveyor.core.config import Config
from conveyor.core.state import Stage
from conveyor.job.assemble import boxing_of, identity_of, job_token, now_utc
from conveyor.job.boundary import command_env, token_env_names
from conveyor.job.context import JobContext, JobLive
from conveyor.job.effects.parts import JobHands, JobPlace, JobSubject
from conveyor.job.events import EventLog
from conveyor.job.hub import JobHub
from conveyor.job.jobfile import JobFile
from conveyor.job.layout import JobPaths
from conveyor.job.pr_review.claim import Claimed
from conveyor.job.pr_review.gather import gather_inputs, write_pr_md
from conveyor.job.pr_review.workspace import PrCheckout, prepare_pr_checkout
from conveyor.job.roles import JobRole
from conveyor.ops.forge.context import OpContext
from conveyor.stages.pr_review import PrInputs


@dataclass(frozen=True)
class ReviewJob:
    """One claimed review job: its config and environment, the claim, its folders, the ops'
    context, and its live parts (job file, events, hub)."""

    config: Config
    config_dir: Path
    environ: Mapping[str, str]
    claimed: Claimed
    paths: JobPaths
    ops: OpContext
    job_file: JobFile
    events: EventLog
    hub: JobHub


def review_context(job: ReviewJob) -> tuple[JobContext, PrInputs]:
    """Check the PR's head out, write what the sessions read, and build the job's context."""
    config, config_dir, environ, claimed = job.config, job.config_dir, job.environ, job.claimed
    paths, ops, job_file, events, hub = job.paths, job.ops, job.job_file, job.events, job.hub
    number = claimed.pr.number
    token = job_token(config, config_dir, environ, ops)
    checkout: PrCheckout = prepare_pr_checkout(
        paths, url=ops.forge.repo_info().clone_url, number=number, head=claimed.head,
        base=config.base, identity=identity_of(config), token=token,
    )  # fmt: skip
    pr_file, said = write_pr_md(ops.forge, claimed, ops.trust(), paths.run_dir, config.base)
    inputs = gather_inputs(config, checkout.repo, claimed, base_ref=checkout.base_ref,
                           pr_file=pr_file, job_dir=paths.job_dir, said=said)  # fmt: skip
    about = {"issue": number, "stage": Stage.PR_REVIEW.value, "job": paths.job_id}
    hub.set_status(lambda: about | {"role": JobRole.READER.value, "lane": job_file.record.lane})
    what = JobSubject(config=config, issue=number, stage=Stage.PR_REVIEW, run_id=paths.job_id)
    where = JobPlace(
        home=paths.home, job_dir=paths.job_dir, run_dir=paths.run_dir, checkout=paths.checkout,
        sessions_dir=paths.sessions, issue_file=pr_file, control_socket=paths.control_socket,
        git_config=checkout.git_config, git=checkout.repo,
        boxing=boxing_of(config, config_dir, environ, paths),
    )  # fmt: skip
    who = JobHands(
        forge=ops.forge, ops=ops, push=checkout.pusher, environ=environ,
        command_env=command_env(config, environ, home=paths.job_dir / "home",
                                git_config=checkout.git_config, cache_dir=paths.home / "cache"),
        token_env=token_env_names(config), token_secrets=(token,) if token else (),
    )  # fmt: skip
    live = JobLive(job_id=paths.job_id, role=JobRole.READER, lane=job_file.record.lane,
                   events=events, job_file=job_file, hub=hub, now=now_utc)  # fmt: skip
    return JobContext(what=what, where=where, who=who, live=live), inputs
