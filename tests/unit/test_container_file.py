"""The Dockerfile, read without a builder: the agent CLIs it installs are the pinned ones,
and the image runs `conveyor` as a user that is not root, with git and bubblewrap."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "Dockerfile"
INSTALL_SCRIPT = ROOT / "scripts" / "install-agent-clis"
# A quoted npm package at an exact version: `"@scope/name@1.2.3"` or `"name@1.2.3"`.
_PINNED = re.compile(r'"((?:@[a-z0-9-]+/)?[a-z0-9.-]+)@(\d[0-9A-Za-z.+-]*)"')


def _pins(text: str) -> dict[str, str]:
    return dict(_PINNED.findall(text))


def _final_stage(text: str) -> str:
    """The instructions after the last `FROM`: what the image that runs is made of."""
    return re.split(r"^FROM ", text, flags=re.MULTILINE)[-1]


def test_the_image_installs_the_agent_clis_at_the_versions_the_install_script_pins() -> None:
    """claude, codex and opencode: the same packages at the same versions as the tests use."""
    pinned = _pins(INSTALL_SCRIPT.read_text(encoding="utf-8"))
    assert set(pinned) == {"@anthropic-ai/claude-code", "@openai/codex", "opencode-ai"}
    assert _pins(DOCKERFILE.read_text(encoding="utf-8")) == pinned


def test_the_image_runs_conveyor_as_a_user_that_is_not_root_with_git_and_bubblewrap() -> None:
    """The last stage switches to a named user; the entry point (which runs `conveyor`) is
    the script tests/contract/deploy/test_container_recipe.py runs; `conveyor` is on PATH."""
    text = DOCKERFILE.read_text(encoding="utf-8")
    last = _final_stage(text)
    users = re.findall(r"^USER (\S+)", last, flags=re.MULTILINE)
    assert users, "the image's last stage sets no USER: it would run as root"
    assert users[-1] not in {"root", "0"}
    assert re.search(r'^ENTRYPOINT \["/opt/conveyor-image/entrypoint"\]', last, flags=re.MULTILINE)
    assert re.search(r"^ENV PATH=\"/opt/conveyor/bin:", last, flags=re.MULTILINE)
    packages = re.search(r"apt-get install[^&]*", text)
    assert packages is not None
    assert {"git", "bubblewrap", "python3"} <= set(packages.group(0).split())
