"""The doctor's tool checks: a missing agent CLI is said with how to install it (issue 48)."""

from __future__ import annotations

from conveyor.cli.doctor_checks import check_tools
from conveyor.core.config import Config


def _config() -> Config:
    return Config.model_validate({
        "repo": "octo/widgets",
        "account": {"login": "bot", "token_env": "T"},
        "allowed_users": ["alice"],
        "commands": {"test": "pytest -q"},
    })  # fmt: skip


def test_a_missing_agent_cli_names_the_install_command_not_the_os_error() -> None:
    """What the shell says of a missing command (127) becomes the remedy `run` gives too."""

    def probe(argv: list[str]) -> tuple[int, str]:
        return (0, "git version 2") if argv[0] == "git" else (127, "not found")

    found = {check.name: check for check in check_tools(_config(), probe)}
    claude = found["agent claude"]
    assert not claude.ok
    assert claude.detail == (
        "claude: not found: install it (npm install -g @anthropic-ai/claude-code), or set"
        " `executable` under [agents] to where it is"
    )


def test_an_installed_cli_shows_its_version() -> None:
    """A CLI that answers `--version` passes with the line it printed."""
    found = check_tools(_config(), lambda argv: (0, f"{argv[0]} 1.2.3"))
    assert [(c.name, c.ok, c.detail) for c in found][1] == (
        "agent claude",
        True,
        "claude: claude 1.2.3",
    )
