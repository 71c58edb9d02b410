"""Loading the configuration file: TOML in, a validated `Config` or one line per mistake out.

`load_or_exit` is how every command loads it: the config and its path, or each mistake on
stderr and the command's exit code.
"""

from __future__ import annotations

import functools
import os
import re
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import typer
from pydantic import ValidationError

from conveyor.cli.config_errors import describe, key_lines, line_of
from conveyor.cli.config_find import NoConfig, find_config
from conveyor.core.config import AccountConfig, Config
from conveyor.job import layout

EXIT_USAGE = 2
EXIT_CONFIG = 2  # every command, for every mistake in the config or its credentials


class ConfigError(Exception):
    """The configuration file is missing or wrong; `lines` names each mistake."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        super().__init__("\n".join(lines))


def parse_config(text: str, source: str) -> Config:
    """Validate TOML text; every error line names `source` and the key.

    The same text is parsed once per process: loading an unchanged file again (a job forked
    from the orchestrator or a drive that loaded it, the demo reading back what it wrote)
    takes the `Config` already made.
    """
    try:
        return _validated(text)
    except tomllib.TOMLDecodeError as exc:
        at = re.search(r"\(at line (\d+), column \d+\)", str(exc))
        where = f"{source}:{at.group(1)}" if at else source
        raise ConfigError([f"{where}: not valid TOML: {exc}"]) from exc
    except ValidationError as exc:
        raise ConfigError(describe(exc.errors(), text, source)) from exc


@functools.lru_cache(maxsize=8)  # a worker serves a config per repository
def _validated(text: str) -> Config:
    """The `Config` of TOML text (frozen, so one object serves every caller); errors raise."""
    return Config.model_validate(tomllib.loads(text))


def config_path(path: Path | str | None = None) -> Path:
    """The config file to read: `path`, else `$CONVEYOR_CONFIG`, else one found
    (`cli/config_find.py`); ConfigError saying where it looked when there is none."""
    try:
        return find_config(path, os.environ, Path.cwd(), Path.home())
    except NoConfig as exc:
        raise ConfigError([str(exc)]) from exc


def read_config_text(file: Path) -> str:
    """The config file's text; ConfigError naming what stops it from being read."""
    try:
        return file.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise ConfigError([f"{file}: no such file"]) from exc
    except UnicodeDecodeError as exc:
        line = exc.object[: exc.start].count(b"\n") + 1
        bad = f"byte {exc.start}: {exc.object[exc.start]:#04x}"
        raise ConfigError([f"{file}:{line}: not UTF-8 text ({bad})"]) from exc
    except IsADirectoryError as exc:
        raise ConfigError([f"{file}: is a folder, not a file"]) from exc
    except OSError as exc:
        raise ConfigError([f"{file}: cannot read: {exc.strerror}"]) from exc


def load_config(path: Path | str | None = None) -> Config:
    """Read the config from `path`, else `$CONVEYOR_CONFIG`, else the one found."""
    file = config_path(path)
    return parse_config(read_config_text(file), str(file))


@dataclass(frozen=True)
class LoadedConfig:
    """A command's config and the file it came from."""

    config: Config
    path: Path  # as named by --config or $CONVEYOR_CONFIG, or as found
    resolved: Path  # absolute, links resolved: what child processes and commands are given


def _say_on_stderr(lines: Sequence[str]) -> None:
    for line in lines:
        typer.echo(line, err=True)


def load_or_exit(
    option: Path | str | None,
    *,
    report: Callable[[Sequence[str]], object] = _say_on_stderr,
    place: bool = False,
    credentials: bool = False,
) -> LoadedConfig:
    """The config `option` (else `$CONVEYOR_CONFIG`, else the one found) names; on a mistake,
    `report` gets a line per mistake (each naming the file, line and key; stderr by default)
    and the command exits `EXIT_CONFIG`, whichever command it is.

    With `place`, a config inside a git repository is a mistake too (`config check`,
    `doctor`); with `credentials`, so is a token or App key that cannot be read, reported
    with the other mistakes in the same pass (commands that reach the forge)."""
    path: Path | None = None
    text: str | None = None
    try:
        path = config_path(option)
        text = read_config_text(path)
        loaded = parse_config(text, str(path))
    except ConfigError as exc:
        lines = list(exc.lines)
        if path is not None and text is not None:
            found = [*lines, *_credential_lines(text, path, credentials)]
            lines = [*_place_lines(path, place), *sorted(found, key=lambda x: _line(x, path))]
        report(lines)
        raise typer.Exit(EXIT_CONFIG) from exc
    lines = [*_place_lines(path, place)]
    if credentials:
        lines += _credential_lines(text, path, credentials, loaded)
    if lines:
        report(lines)
        raise typer.Exit(EXIT_CONFIG)
    return LoadedConfig(loaded, path, path.resolve())


def _line(said: str, path: Path) -> float:
    """The line number a mistake names after `PATH:`, for sorting (none: last)."""
    number = said.removeprefix(f"{path}:").split(":", 1)[0]
    return float(number) if number.isdigit() else float("inf")


def _place_lines(path: Path, place: bool) -> list[str]:
    """The mistake of a config inside a git repository, when asked."""
    if not place:
        return []
    from conveyor.cli.config_place import inside_repository

    inside = inside_repository(path)
    return [] if inside is None else [inside]


def _credential_lines(
    text: str, path: Path, asked: bool, loaded: Config | None = None
) -> list[str]:
    """Why the `[account]` table's token or key cannot be read, at its line; the table is
    read on its own when the rest of the file does not validate."""
    if not asked:
        return []
    from conveyor.forge.credentials import account_problem

    account = loaded.account if loaded is not None else _account_alone(text)
    if account is None:
        return []  # the table's own mistakes are already listed
    problem = account_problem(account, os.environ, path.parent)
    if problem is None:
        return []
    key = problem.split(": ", 1)[0]
    line = line_of(tuple(key.split(".")), key_lines(text))
    return [f"{path}:{line}: {problem}" if line is not None else f"{path}: {problem}"]


def _account_alone(text: str) -> AccountConfig | None:
    try:
        raw = tomllib.loads(text).get("account")
        return AccountConfig.model_validate(raw) if isinstance(raw, dict) else None
    except (tomllib.TOMLDecodeError, ValidationError):
        return None


def conveyor_home(loaded: LoadedConfig) -> Path:
    """`$CONVEYOR_HOME` for this config, as its jobs find it (`conveyor.job.layout`)."""
    return layout.conveyor_home(loaded.config, os.environ, loaded.resolved.parent)


def repo_home(loaded: LoadedConfig) -> Path:
    """This repository's folder under `$CONVEYOR_HOME`, the one its jobs write."""
    return layout.repo_home(loaded.config, os.environ, loaded.resolved.parent)
