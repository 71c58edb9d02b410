"""The Dockerfile builds an image that runs `conveyor`, git, bubblewrap and the agent CLIs as
a user that is not root: built and run where a container builder answers (`docker info`)."""

from __future__ import annotations

import shutil
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.contract
ROOT = Path(__file__).resolve().parents[3]
BUILD_TIMEOUT_S = 1800
# What the image must run, each printing one line or more; `id -u` first.
CHECKS = "id -u && conveyor --help && git --version && bwrap --version && " + " && ".join(
    f"{cli} --version" for cli in ("claude", "codex", "opencode")
)


def _docker() -> str:
    """The docker CLI when a builder answers, else the test is skipped saying why."""
    docker = shutil.which("docker")
    if docker is None:
        pytest.skip("no container builder: `docker` is not on PATH")
    answer = subprocess.run(
        [docker, "info"], capture_output=True, text=True, timeout=60, check=False
    )
    if answer.returncode != 0:
        why = (answer.stderr.strip().splitlines() or ["no output"])[-1]
        pytest.skip(f"no container builder: `docker info` fails ({why})")
    return docker


@pytest.fixture(scope="module")
def image() -> Iterator[tuple[str, str]]:
    """The image built from the repository's Dockerfile (removed afterwards)."""
    docker = _docker()
    tag = f"conveyor-test:{uuid.uuid4().hex[:12]}"
    built = subprocess.run(
        [docker, "build", "--tag", tag, str(ROOT)],
        capture_output=True, text=True, timeout=BUILD_TIMEOUT_S, check=False,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr[-4000:]
    yield docker, tag
    subprocess.run([docker, "image", "rm", "--force", tag], capture_output=True, check=False)


@pytest.mark.timeout(BUILD_TIMEOUT_S + 300)
def test_the_image_runs_conveyor_git_bubblewrap_and_the_agent_clis_as_a_user(
    image: tuple[str, str],
) -> None:
    """Each tool answers inside the image, and the user is not root."""
    docker, tag = image
    ran = subprocess.run(
        [docker, "run", "--rm", "--entrypoint", "sh", tag, "-c", CHECKS],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert ran.stdout.splitlines()[0] != "0"
    assert "conveyor" in ran.stdout
    assert "git version" in ran.stdout
