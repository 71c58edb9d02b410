"""Building a claimed job's `JobContext`: checkout, rescue, environment, push op, hub."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from conveyor.core.config import Config
from conveyor.core.state import IssueState, Stage
from conveyor.forge.connect import read_token
from conveyor.git.runner import Boxer, GitEnv, Identity
from conveyor.job.boundary import command_env, token_env_names
from conveyor.job.box_plans import (
    base_plan,
    command_boxing,
    git_boxer,
    hidden_paths,
    job_box,
    make_folders,
)
from conveyor.job.claiming import Claimed
from conveyor.job.context import JobContext, JobLive
from conveyor.job.effects.parts import JobHands, JobPlace, JobSubject
from conveyor.job.effects.push import commit_split
from conveyor.job.events import EventLog
from conveyor.job.hub import JobHub
from conveyor.job.jobfile import JobFile
from conveyor.job.layout import JobPaths, leftover_checkouts
from conveyor.job.roles import JobRole, agent_role_of
from conveyor.job.stacking import checkout_start, record_stack
from conveyor.job.wiki_workspace import WIKI_KEEP, keep_wiki_leftovers, prepare_wiki
from conveyor.job.workspace import Workspace, prepare_workspace
from conveyor.ops.forge.context import OpContext
from conveyor.ops.forge.state_store import fetch_state, save_state, state_of
from conveyor.ops.local.wiki_branch import WikiCheckout
from conveyor.verify.boxing import Boxing


def now_utc() -> datetime:
    """The job's clock."""
    return datetime.now(UTC)


@dataclass(frozen=True)
class Started:
    """A claimed job before its checkout exists."""

    config: Config
    config_dir: Path
    issue: int
    stage: Stage
    resume: bool
    environ: Mapping[str, str]
    paths: JobPaths
    claimed: Claimed
    lane: str
    role: JobRole
    job_file: JobFile
    events: EventLog
    hub: JobHub
    ops: OpContext
    stack_on: int | None = None  # `--stack-on P`: the job's issue is to be built on P's branch


def identity_of(config: Config) -> Identity:
    """Who the job's and its sessions' commits are by: the pipeline's account."""
    login = config.account.login
    return Identity(name=login, email=f"{login.replace('[bot]', '')}@users.noreply.conveyor")


def build_context(started: Started) -> tuple[JobContext, IssueState]:
    """Prepare the checkout (rescuing leftovers into the state); the context and the state."""
    token = job_token(started.config, started.config_dir, started.environ, started.ops)
    state = started.claimed.state
    stack_on = started.stack_on if state.stacked_on is None else None
    boxing = _boxing(started)
    box = git_boxer(boxing)
    _keep_wiki_leftovers(started, box)
    workspace = _check_out(started, token, checkout_start(state, stack_on), box)
    if stack_on is not None:
        state = _record_stack(started, state, workspace, stack_on)
    wiki = _check_out_wiki(started, workspace)
    state = _record_rescues(started, workspace, state)
    _link_socket(started.paths)
    _wire_hub(started, workspace, wiki)
    return _context(started, workspace, wiki, token, boxing), state


def _trailer_role(started: Started) -> str:
    """The role its commits' trailers name: the stage's agent role."""
    return agent_role_of(started.stage).value


def _keep_wiki_leftovers(started: Started, box: Boxer) -> None:
    """A writer with a wiki first keeps the wiki changes earlier checkouts left behind."""
    settings, paths = started.config.wiki_settings, started.paths
    if settings is not None and started.role is JobRole.WRITER:
        leftovers = leftover_checkouts(paths.home, started.issue, paths.job_dir)
        keep_wiki_leftovers(paths.home, leftovers, settings.dir, started.issue, GitEnv(), box=box)


def _check_out(started: Started, token: str | None, start: str | None, box: Boxer) -> Workspace:
    """The job's checkout of the issue's branch (a writer rescues what earlier jobs left)."""
    config = started.config
    return prepare_workspace(
        started.paths,
        url=started.ops.forge.repo_info().clone_url,
        issue=started.issue,
        base=config.base,
        identity=identity_of(config),
        token=token,
        trailer_role=_trailer_role(started),
        now=now_utc(),
        box=box,
        rescue=started.role is JobRole.WRITER,
        start=start,
    )


def _record_stack(
    started: Started, state: IssueState, workspace: Workspace, prereq: int
) -> IssueState:
    """The first stacked job saves which prerequisite head the branch is built on."""
    state = record_stack(
        started.ops, started.issue, state, workspace.repo, prereq=prereq, base=started.config.base
    )
    if state.stacked_on is not None:
        on = state.stacked_on
        started.events.emit("stacked", on=on.issue, head=on.head_sha)
    return state


def _check_out_wiki(started: Started, workspace: Workspace) -> WikiCheckout | None:
    """The wiki's checkout beside the code's, when the config has a wiki."""
    return prepare_wiki(
        started.config,
        started.ops.forge.repo_info(),
        code=workspace.repo,
        home=started.paths.home,
        keep=started.paths.job_dir / WIKI_KEEP,
        issue=started.issue,
        auth=workspace.pusher.auth,
        trailer_role=_trailer_role(started),
    )


def _record_rescues(started: Started, workspace: Workspace, state: IssueState) -> IssueState:
    """What the checkout's rescue found: lost changes into job.json, the last rescue into the
    issue's state (saved on the forge)."""
    if workspace.lost_changes:
        started.job_file.set_lost_changes(list(workspace.lost_changes))
    if not workspace.rescues:
        return state
    lookup = fetch_state(started.ops, started.issue)
    state = state_of(lookup).model_copy(update={"rescue": workspace.rescues[-1]})
    save_state(started.ops, started.issue, state, lookup)
    return state


def _wire_hub(started: Started, workspace: Workspace, wiki: WikiCheckout | None) -> None:
    """The control socket's answers: the job's status, and for a writer its commits."""
    hub, paths = started.hub, started.paths
    about = {"issue": started.issue, "stage": started.stage.value, "job": paths.job_id}
    hub.set_status(lambda: about | {"role": started.role.value, "lane": started.lane})
    if started.role is not JobRole.WRITER:
        return
    repo, wiki_repo = workspace.repo, wiki.repo if wiki else None
    wiki_dir, role = (wiki.dir if wiki else ""), _trailer_role(started)
    hub.set_commit(
        lambda files, message: commit_split(
            repo, wiki_repo, wiki_dir, files, message=message, role=role
        )
    )


def _context(
    started: Started,
    workspace: Workspace,
    wiki: WikiCheckout | None,
    token: str | None,
    boxing: Boxing,
) -> JobContext:
    """The job's context: what it works on, where, with which hands, and its live parts."""
    config, paths, environ = started.config, started.paths, started.environ
    what = JobSubject(
        config=config,
        issue=started.issue,
        stage=started.stage,
        run_id=started.ops.run_id,
        resume=started.resume,
    )
    where = JobPlace(
        home=paths.home,
        job_dir=paths.job_dir,
        run_dir=paths.run_dir,
        checkout=paths.checkout,
        sessions_dir=paths.sessions,
        issue_file=started.claimed.issue_md,
        control_socket=paths.control_socket,
        git_config=workspace.git_config,
        git=workspace.repo,
        wiki=wiki,
        boxing=boxing,
    )
    who = JobHands(
        forge=started.ops.forge,
        ops=started.ops,
        push=workspace.pusher,
        seen=workspace.pusher.seen,
        environ=environ,
        command_env=command_env(
            config,
            environ,
            home=paths.job_dir / "home",
            git_config=workspace.git_config,
            cache_dir=paths.home / "cache",
        ),
        token_env=token_env_names(config),
        token_secrets=(token,) if token else (),
    )
    live = JobLive(
        job_id=paths.job_id,
        role=started.role,
        lane=started.lane,
        events=started.events,
        job_file=started.job_file,
        hub=started.hub,
        now=now_utc,
    )
    return JobContext(what=what, where=where, who=who, live=live)


def _boxing(started: Started) -> Boxing:
    """The job's box and its commands' base plan."""
    return boxing_of(started.config, started.config_dir, started.environ, started.paths)


def boxing_of(
    config: Config, config_dir: Path, environ: Mapping[str, str], paths: JobPaths
) -> Boxing:
    """A job's box and its commands' base plan (a stage job's, a PR review's)."""
    hidden = hidden_paths(config, config_dir, environ, paths.home)
    plan = make_folders(base_plan(config, paths.job_dir, paths.checkout, hidden, environ))
    return command_boxing(job_box(config), config, plan, environ)


def job_token(
    config: Config, config_dir: Path, environ: Mapping[str, str], ops: OpContext
) -> str | None:
    """The token git fetches and pushes with (a stage job's, a PR review's): the configured
    one, or an App's installation token.

    An installation token lasts an hour; it is asked for when the job starts.
    """
    if config.account.app is not None:
        return ops.forge.installation_token()
    return read_token(config, environ, config_dir)


def _link_socket(paths: JobPaths) -> None:
    """When the socket lives elsewhere (a long path), `control.sock` points to it."""
    natural = paths.job_dir / "control.sock"
    if paths.control_socket != natural and not natural.is_symlink():
        natural.symlink_to(paths.control_socket)
