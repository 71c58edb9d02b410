"""The doctor's box trial: setup, then the tests, in the job's box, on the base branch.

Before the first issue, a person learns whether their project runs in the box at all:
the base branch is checked out as a job checks it out, set up and tested with the
job's own box, environment and network, and each path the box hid and each host it
blocked is named with the config line that fixes it (`verify/box_hints.py`). A suite
that already fails at the base is no failure here (verify counts only new failures);
one that cannot run (126, 127, a usage error, no tests, a timeout) is.
"""

from __future__ import annotations

import secrets
import tempfile
from collections.abc import Mapping
from pathlib import Path

from conveyor.cli.doctor_checks import Check
from conveyor.core.config import Config
from conveyor.core.run_verdict import classify_run
from conveyor.core.test_runs import RunKind
from conveyor.core.verify import CommandResult, Outcome
from conveyor.forge.connect import read_token
from conveyor.forge.protocol import Forge
from conveyor.git.checkout import agent_checkout, update_cache, write_git_config
from conveyor.git.runner import GitEnv, GitError, Identity, Repo
from conveyor.git.token_push import PushAuth, write_askpass
from conveyor.job.boundary import command_env
from conveyor.job.box_plans import base_plan, command_boxing, hidden_paths, job_box, make_folders
from conveyor.job.layout import repo_home
from conveyor.sandbox import BoxUnavailable
from conveyor.verify.context import Context

NAME = "box trial"
IDENTITY = Identity(name="conveyor-doctor", email="doctor@conveyor.invalid")


def _base_checkout(forge: Forge, config: Config, token: str | None, root: Path) -> Path:
    """The base branch, checked out under `root` as a job checks its branch out."""
    git_config = write_git_config(root / "job" / "gitconfig", IDENTITY)
    env = GitEnv(config_global=git_config, identity=IDENTITY)
    auth = PushAuth(write_askpass(root / "job" / "askpass.sh"), token, secrets.token_hex(16))
    url = forge.repo_info().clone_url
    fetch_env = GitEnv(git_config, IDENTITY, extra=auth.fetch_variables())
    cache = Repo(update_cache(root / "cache.git", url, fetch_env).path, env)
    checkout = root / "job" / "repo"
    agent_checkout(cache, checkout, url, branch="conveyor-doctor", base=config.base, env=env)
    return checkout


def _said(result: CommandResult) -> str:
    tail = result.tail.strip().splitlines()[-3:]
    said = f": {' / '.join(tail)}" if tail else ""
    box = "".join(f"; {line}" for line in result.box)
    return f"`{result.command}` exit {result.exit_code}{box}{said}"


def _test_check(result: CommandResult) -> Check:
    if result.ok:
        return Check(f"{NAME}: test", True, f"`{result.command}` passed in the box")
    timed_out = result.outcome is Outcome.TIMED_OUT
    verdict = classify_run(result.exit_code, result.tail, timed_out=timed_out)
    cannot = verdict.kind is RunKind.ENVIRONMENT  # each runner's statuses (core.runners)
    if cannot or result.box:
        why = verdict.why if cannot else result.reason
        detail = f"{why}; " if why else ""
        return Check(f"{NAME}: test", False, detail + _said(result))
    detail = (
        f"`{result.command}` ran in the box (exit {result.exit_code}: tests that already "
        "fail at the base are counted only when new)"
    )
    return Check(f"{NAME}: test", True, detail)


def check_box_trial(
    forge: Forge, config: Config, environ: Mapping[str, str], config_dir: Path
) -> list[Check]:
    """Setup once, then the test command, in the job's box on the base branch."""
    try:
        box = job_box(config)
    except BoxUnavailable:
        return []  # the sandbox check already says why
    if not box.confined:
        return [Check(NAME, True, 'skipped: [sandbox] mode = "none"')]
    token = (
        forge.installation_token()
        if config.account.app is not None
        else read_token(config, environ, config_dir)
    )
    home = repo_home(config, environ, config_dir)
    with tempfile.TemporaryDirectory(prefix="conveyor-doctor-") as tmp:
        root = Path(tmp)
        try:
            checkout = _base_checkout(forge, config, token, root)
        except (GitError, ValueError) as exc:
            return [Check(NAME, False, f"could not check out {config.base}: {exc}")]
        hidden = hidden_paths(config, config_dir, environ, home)
        plan = make_folders(base_plan(config, root / "job", checkout, hidden, environ))
        boxing = command_boxing(box, config, plan, environ)
        env = command_env(
            config, environ, home=plan.home, git_config=root / "job" / "gitconfig",
            cache_dir=home / "cache",
        )  # fmt: skip
        ctx = Context(
            checkout, config.commands, env, root / "job" / "logs", boxing=boxing,
            explain_failures=True,
        )  # fmt: skip
        setup = ctx.run("setup", config.commands.setup, setup=True)
        if not setup.ok:
            return [Check(f"{NAME}: setup", False, _said(setup))]
        found = [Check(f"{NAME}: setup", True, setup.reason or f"`{setup.command}` passed")]
        command = ctx.test_command(checkout) or config.commands.test
        return [*found, _test_check(ctx.run("test", command))]
