"""`conveyor run` with webhooks: a delivery wakes the loop, bad ones are refused, polling stays."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from conveyor.core.state import Stage
from conveyor.emulator.app.server import ForgeServer
from conveyor.forge.webhook import sign
from conveyor.job.entry import conveyor_argv
from conveyor.testing import http
from conveyor.testing.hooked_run import SECRET_ENV, HookedRun, run_config, wait_for
from conveyor.testing.world import TRUSTED, World
from tests.e2e.back.merge_helpers import clean_back_half
from tests.e2e.helpers import IMPL, implement_done, reply, spec_ready, triage

EXIT_USAGE = 2


def _world(forge_server: ForgeServer, tmp_path: Path, poll_seconds: float) -> World:
    return World.create(forge_server, tmp_path / "world", config=run_config(poll_seconds))


def test_a_trusted_answer_by_webhook_starts_triage_long_before_the_poll(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """A 10-minute poll: the answer's delivery starts triage; a forged one is refused, once."""
    world = _world(forge_server, tmp_path, poll_seconds=600)
    run = HookedRun(world).start()
    try:
        number = run.needs_info("hooked")
        run.answer_starts_triage("hooked", number)
        lines = "\n".join(line.split(" ", 1)[1] for line in run.log_lines())
        assert f"webhook issue_comment created #{number}: ticking now" in lines
        body = json.dumps({"action": "created", "repository": {"full_name": world.repo}}).encode()
        forged = {"X-GitHub-Event": "issue_comment", "X-Hub-Signature-256": sign(b"guess", body)}
        url = f"http://127.0.0.1:{run.port}/"
        assert http.post(url, content=body, headers=forged, timeout=30).status_code == 401
        refused = [line for line in run.log_lines() if "webhook refused (401)" in line]
        assert len(refused) == 1
        assert "bad signature" in refused[0]
    finally:
        out, err = run.stop()
    assert run.process is not None
    assert run.process.returncode in (0, 130), out + err


def _fixer(tag: str) -> dict[str, Any]:
    """A fixer that resolves the person's one finding with one commit."""
    fixed = IMPL.replace("summed.", "summed; an empty stock totals 0.")
    files = [
        {"write": {"path": "inventory/total.py", "content": fixed}},
        {"commit": "Say what an empty stock totals"},
    ]
    answer = {
        "status": "done", "summary": "Documented the empty stock.",
        "addressed": [{"finding": 1, "how": "docstring"}], "disputes": [],
    }  # fmt: skip
    return {"tag": tag, "kind": "fix", "turns": [{"actions": files}, reply(answer)]}


def test_a_trusted_review_by_webhook_starts_the_fix_job_during_a_long_ci_wait(
    world: World,
) -> None:
    """10-minute polls: at checks, waiting for CI, a trusted review's delivery makes the
    checks job due; it takes the review as a finding and the fix job starts."""
    tag = "hookfb"
    world.write_scenario(
        [triage(tag), spec_ready(tag), implement_done(tag), *clean_back_half(tag)[:3], _fixer(tag)]
    )
    issue = world.open_issue(f"Add a stock total [{tag}]", "Sum the quantities of every item.")
    driven = world.drive(issue.number, through="review")
    assert driven.returncode == 0, driven.stdout + driven.stderr
    pr = world.pr(issue.number)
    assert pr is not None
    slow = {"poll_seconds": 600, "ci_poll_seconds": 600, "stage_caps": {"review": 0}}
    world.write_config({"limits": {"claim_wait_seconds": [0, 0], **slow}})
    run = HookedRun(world).start()
    try:
        ended = f"job ended #{issue.number} checks "
        wait_for("the checks job's CI wait", lambda: any(ended in x for x in run.log_lines()))
        state = world.state(issue.number)
        assert state is not None
        assert (state.stage, state.ci_wait is not None) == (Stage.CHECKS, True)
        world.forge_as(TRUSTED).create_review(pr.number, "Say what 0 items total.", "COMMENT")
        fix_jobs = world.repo_home / "jobs"
        wait_for("the fix job", lambda: any(fix_jobs.glob(f"issue-{issue.number}-fix-*")))
        lines = "\n".join(run.log_lines())
        assert f"webhook pull_request_review submitted #{pr.number}: ticking now" in lines
    finally:
        run.stop()


def test_without_deliveries_the_poll_still_starts_the_job(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """Webhooks on but no hook on the forge: the answer is picked up by the 1 s poll."""
    world = _world(forge_server, tmp_path, poll_seconds=1)
    run = HookedRun(world, hook=False).start()
    try:
        number = run.needs_info("polled")
        run.answer_starts_triage("polled", number)
        assert not any("webhook issue_comment" in line for line in run.log_lines())
    finally:
        run.stop()


def test_webhook_flags_name_what_is_missing(forge_server: ForgeServer, tmp_path: Path) -> None:
    """A port without the secret's variable, or a variable that is unset: one-line usage errors."""
    world = _world(forge_server, tmp_path, poll_seconds=600)
    env = {k: v for k, v in world.env().items() if k != SECRET_ENV}
    config = ["--config", str(world.config_path)]

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        argv = [*conveyor_argv(), "run", *args, *config]
        return subprocess.run(
            argv, env=env, capture_output=True, text=True, timeout=60, check=False
        )

    alone = run("--webhook-port", "0")
    assert alone.returncode == EXIT_USAGE
    assert alone.stderr.strip() == "--webhook-port and --webhook-secret-env go together"
    unset = run("--webhook-port", "0", "--webhook-secret-env", SECRET_ENV)
    assert unset.returncode == EXIT_USAGE
    assert SECRET_ENV in unset.stderr
    assert len(unset.stderr.strip().splitlines()) == 1
    assert os.environ.get(SECRET_ENV) is None
