"""The paths a configured command names, and which of them it runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from conveyor.sandbox.command_words import named_paths


def _named(command: str) -> dict[str, bool]:
    return {str(n.path): n.runs for n in named_paths(command, "/home/ada")}


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("bash /tmp/x/setup.sh", {"/tmp/x/setup.sh": True}),
        ("/opt/t/bin/tool --flag /srv/data", {"/opt/t/bin/tool": True, "/srv/data": False}),
        ("FOO=1 /tmp/run.sh", {"/tmp/run.sh": True}),
        ("env A=1 python3 /tmp/s.py arg", {"/tmp/s.py": True}),
        (
            "pytest --junitxml=/tmp/report.xml --basetemp=/tmp/bt",
            {"/tmp/report.xml": False, "/tmp/bt": False},
        ),
        ("make test > /tmp/log.txt 2>&1", {"/tmp/log.txt": False}),
        ("true && sh ~/setup.sh; /tmp/b", {"/home/ada/setup.sh": True, "/tmp/b": True}),
        ("python -m pytest /tmp/tests", {"/tmp/tests": False}),
        ("echo 'unterminated", {}),
    ],
)
def test_each_named_path_and_whether_it_runs(command: str, expected: dict[str, bool]) -> None:
    """A program or an interpreter's script runs; an option's value, an argument, a
    redirection's target do not; `~/` is the owner's home; a command that does not parse
    names nothing it cannot read."""
    assert _named(command) == expected


def test_relative_words_name_nothing() -> None:
    """`./run.sh` and `tests/` lie in the checkout: not named here."""
    assert named_paths("./run.sh tests/ && cd src", None) == []
    assert named_paths("bash ~/x.sh", None) == []  # no home known: `~` is left alone
    assert Path("/") not in [n.path for n in named_paths("ls /", None)]
