"""Loading the configuration file: TOML in, a validated `Config` or one line per mistake out.

`load_or_exit` is how every command loads it: the config and its path, or each mistake on
stderr and the command's exit code.
"""

from __future__ import annotations

import functools
import os
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import typer
from pydantic import ValidationError

from conveyor.core.config import Config
from conveyor.job import layout

EXIT_USAGE = 2


class ConfigError(Exception):
    """The configuration file is missing or wrong; `lines` names each mistake."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        super().__init__("\n".join(lines))


SCALARS = (str, int, float, bool)


def _describe(error: dict[str, object]) -> str:
    """One mistake as `KEY: what was expected[, got VALUE]`."""
    # A dict's bad key is located at `KEY.[key]`: the key itself names it.
    skipped = ("__root__", "[key]")
    loc = ".".join(str(part) for part in error.get("loc", ()) if part not in skipped)  # type: ignore[attr-defined]
    kind = str(error.get("type", ""))
    message = str(error.get("msg", "invalid"))
    message = message.removeprefix("Value error, ").replace("Input should be", "expected")
    message = message.replace("a valid tuple", "a list").replace("a valid list", "a list")
    if kind == "extra_forbidden":
        return f"{loc or '(top level)'}: unknown key"
    if kind == "missing":
        return f"{loc}: required key is missing"
    given = error.get("input")
    if isinstance(given, SCALARS) and "got " not in message:
        shown = repr(given) if len(repr(given)) <= 60 else repr(given)[:57] + "..."
        message = f"{message}, got {shown}"
    return f"{loc or '(top level)'}: {message}"


def parse_config(text: str, source: str) -> Config:
    """Validate TOML text; every error line names `source` and the key.

    The same text is parsed once per process: loading an unchanged file again (a job forked
    from the orchestrator or a drive that loaded it, the demo reading back what it wrote)
    takes the `Config` already made.
    """
    try:
        return _validated(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError([f"{source}: not valid TOML: {exc}"]) from exc
    except ValidationError as exc:
        lines = [f"{source}: {_describe(dict(err))}" for err in exc.errors()]
        raise ConfigError(lines) from exc


@functools.lru_cache(maxsize=8)  # a worker serves a config per repository
def _validated(text: str) -> Config:
    """The `Config` of TOML text (frozen, so one object serves every caller); errors raise."""
    return Config.model_validate(tomllib.loads(text))


def config_path(path: Path | str | None = None) -> Path:
    """The config file to read: `path`, else `$CONVEYOR_CONFIG`; ConfigError when neither."""
    chosen = path or os.environ.get("CONVEYOR_CONFIG")
    if not chosen:
        raise ConfigError(["no configuration: pass --config PATH or set CONVEYOR_CONFIG"])
    return Path(chosen)


def load_config(path: Path | str | None = None) -> Config:
    """Read the config from `path`, else `$CONVEYOR_CONFIG`."""
    file = config_path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise ConfigError([f"{file}: no such file"]) from exc
    except UnicodeDecodeError as exc:
        line = exc.object[: exc.start].count(b"\n") + 1
        bad = f"line {line}, byte {exc.start}: {exc.object[exc.start]:#04x}"
        raise ConfigError([f"{file}: not UTF-8 text ({bad})"]) from exc
    except IsADirectoryError as exc:
        raise ConfigError([f"{file}: is a folder, not a file"]) from exc
    except OSError as exc:
        raise ConfigError([f"{file}: cannot read: {exc.strerror}"]) from exc
    return parse_config(text, str(file))


@dataclass(frozen=True)
class LoadedConfig:
    """A command's config and the file it came from."""

    config: Config
    path: Path  # as named by --config or $CONVEYOR_CONFIG
    resolved: Path  # absolute, links resolved: what child processes and commands are given


def _say_on_stderr(lines: Sequence[str]) -> None:
    for line in lines:
        typer.echo(line, err=True)


def load_or_exit(
    option: Path | str | None,
    *,
    code: int = EXIT_USAGE,
    report: Callable[[Sequence[str]], object] = _say_on_stderr,
    place: bool = False,
) -> LoadedConfig:
    """The config `option` (else `$CONVEYOR_CONFIG`) names; on a mistake, `report` gets a line
    per mistake (each naming the file and key; stderr by default) and the command exits `code`.

    With `place`, a config that does not load and lies inside a git repository also gets that
    mistake first, so one run lists every mistake (`config check`, `doctor`)."""
    path: Path | None = None
    try:
        path = config_path(option)
        loaded = load_config(path)
    except ConfigError as exc:
        from conveyor.cli.config_place import inside_repository

        inside = inside_repository(path) if place and path is not None else None
        report(exc.lines if inside is None else [inside, *exc.lines])
        raise typer.Exit(code) from exc
    return LoadedConfig(loaded, path, path.resolve())


def conveyor_home(loaded: LoadedConfig) -> Path:
    """`$CONVEYOR_HOME` for this config, as its jobs find it (`conveyor.job.layout`)."""
    return layout.conveyor_home(loaded.config, os.environ, loaded.resolved.parent)


def repo_home(loaded: LoadedConfig) -> Path:
    """This repository's folder under `$CONVEYOR_HOME`, the one its jobs write."""
    return layout.repo_home(loaded.config, os.environ, loaded.resolved.parent)
