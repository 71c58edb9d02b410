"""Three orchestrators (own homes and lanes, nothing shared but the forge) on one repository."""

from __future__ import annotations

import subprocess
from pathlib import Path

from conveyor.core.state import Stage
from conveyor.job.drive import conveyor_argv
from conveyor.testing.world import World, config_toml
from tests.e2e.orchestrator.chain import (
    assert_invariants,
    assert_no_overlap,
    assert_one_state_comment,
    chain_config,
    entries,
    job_spans,
    log_lines,
)

TAGS = tuple(f"t{n}" for n in range(10))


def _config(world: World, root: Path, n: int) -> tuple[Path, Path]:
    """Orchestrator `n`'s own config file and home."""
    home = root / f"home-{n}"
    data = world.base_config() | {"home": str(home)}
    for key, value in chain_config(stage_caps={"implement": 0, "review": 0}).items():
        data[key] = {**data.get(key, {}), **value}
    path = root / f"config-{n}" / "conveyor.toml"
    path.parent.mkdir(parents=True)
    path.write_text(config_toml(data))
    return path, home / world.repo.replace("/", "__")


def test_three_orchestrators_take_ten_issues_forward_without_doubling_any_job(
    world: World, tmp_path: Path
) -> None:
    """Every issue is triaged and specified once: one issue's jobs never overlap, one state
    comment each, at most one live claim (the loops here stop before implement, to stay fast).
    """
    world.write_scenario(entries(TAGS))
    numbers = [world.open_issue(f"Add {tag} [{tag}]", f"{tag}() returns 1.").number for tag in TAGS]
    configs = [_config(world, tmp_path, n) for n in range(3)]
    runs = [
        subprocess.Popen(
            [*conveyor_argv(), "run", "--until-idle", "--config", str(path)],
            env=world.env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for path, _ in configs
    ]
    for run in runs:
        out, err = run.communicate(timeout=280)
        assert run.returncode == 0, out + err
    homes = [home for _, home in configs]
    lanes = {(home / "lane").read_text().strip() for home in homes}
    assert len(lanes) == 3
    for number in numbers:
        state = world.state(number)
        assert state is not None
        assert state.stage is Stage.IMPLEMENT, (number, state.stopped)
        assert_one_state_comment(world, number)
        spans = job_spans(homes, number)
        assert len(spans) == 2
        assert_no_overlap(spans)
    assert_invariants(world, *numbers)
    started = [line for home in homes for line in log_lines(home) if line.startswith("started #")]
    assert len(started) >= len(numbers) * 2
