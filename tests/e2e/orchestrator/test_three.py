"""Three orchestrators (own homes and lanes, nothing shared but the forge) on one repository."""

from __future__ import annotations

import subprocess
from pathlib import Path

from conveyor.core.state import Stage
from conveyor.testing import http
from conveyor.testing.forked_run import Process, start_conveyor
from conveyor.testing.world import ACCOUNT, World, config_toml
from tests.e2e.back.merge_helpers import clean_back_half
from tests.e2e.orchestrator.chain import (
    assert_invariants,
    assert_no_overlap,
    assert_no_repeated_signed_comment,
    assert_one_state_comment,
    chain_config,
    entries,
    job_spans,
)

TAGS = tuple(f"t{n}" for n in range(10))


def _finish(run: Process, timeout: float) -> str:
    """The orchestrator's output once it ended (killed after `timeout` seconds)."""
    try:
        out, err = run.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        run.kill()
        out, err = run.communicate()
        err += f"\n(killed after {timeout} s)"
    return out[-3000:] + err[-3000:]


def pr_heads(world: World) -> list[str]:
    """The head branch of every PR of the repository, open or closed."""
    url = f"{world.server.url}/repos/{world.repo}/pulls?state=all&per_page=100"
    headers = {"Authorization": f"token {world.tokens[ACCOUNT]}"}
    answer = http.get(url, headers=headers, timeout=30)
    answer.raise_for_status()
    return [pr["head"]["ref"] for pr in answer.json()]


def _config(world: World, root: Path, n: int) -> tuple[Path, Path]:
    """Orchestrator `n`'s own config file and home."""
    home = root / f"home-{n}"
    data = world.base_config() | {"home": str(home)}
    for key, value in chain_config(stage_caps={}, ci_poll_seconds=0.2).items():
        data[key] = {**data.get(key, {}), **value}
    path = root / f"config-{n}" / "conveyor.toml"
    path.parent.mkdir(parents=True)
    path.write_text(config_toml(data))
    return path, home / world.repo.replace("/", "__")


def test_three_orchestrators_merge_ten_issues_without_doubling_any_job(
    world: World, tmp_path: Path
) -> None:
    """Every issue merges: one issue's jobs never overlap in time, one PR and one state comment
    each, no live claim left, and each stage's job ran once per issue."""
    back = [entry for tag in TAGS for entry in clean_back_half(tag)]
    world.write_scenario([*entries(TAGS), *back])
    numbers = [world.open_issue(f"Add {tag} [{tag}]", f"{tag}() returns 1.").number for tag in TAGS]
    configs = [_config(world, tmp_path, n) for n in range(3)]
    runs = [
        start_conveyor(["run", "--until-idle", "--config", str(path)], world.env())
        for path, _ in configs
    ]
    said = [_finish(run, timeout=290) for run in runs]
    for run, text in zip(runs, said, strict=True):
        assert run.returncode == 0, "\n---\n".join(said)
        assert "tick failed" not in text, text
    homes = [home for _, home in configs]
    lanes = {(home / "lane").read_text().strip() for home in homes}
    assert len(lanes) == 3
    heads = pr_heads(world)
    for number, tag in zip(numbers, TAGS, strict=True):
        state = world.state(number)
        assert state is not None
        assert state.stage is Stage.DONE, (number, state.stage, state.stopped)
        issue = world.issue(number)
        assert issue.state == "closed"
        assert "agent:merged" in issue.labels
        assert heads.count(f"agent/issue-{number}") == 1, "one PR per issue"
        pr = world.pr(number)
        assert pr is not None
        assert pr.merged
        assert world.base_file(f"inventory/{tag}.py") is not None
        assert_one_state_comment(world, number)
        spans = job_spans(homes, number)
        assert_no_overlap(spans)
    assert_invariants(world, *numbers)
    assert_no_repeated_signed_comment(world, *numbers)
