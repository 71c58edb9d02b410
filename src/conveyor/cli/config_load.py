"""Loading the configuration file: TOML in, a validated `Config` or one line per mistake out."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

from pydantic import ValidationError

from conveyor.core.config import Config, home_path


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
    """Validate TOML text; every error line names `source` and the key."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError([f"{source}: not valid TOML: {exc}"]) from exc
    try:
        return Config.model_validate(data)
    except ValidationError as exc:
        lines = [f"{source}: {_describe(dict(err))}" for err in exc.errors()]
        raise ConfigError(lines) from exc


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


def conveyor_home(config: Config) -> Path:
    """`$CONVEYOR_HOME` for this config: the `home` key, the variable, or the default."""
    chosen = home_path(config, os.environ.get("CONVEYOR_HOME"), str(Path.home()))
    return Path(chosen).expanduser()


def repo_home(config: Config) -> Path:
    """This repository's folder under `$CONVEYOR_HOME`."""
    return conveyor_home(config) / config.repo_dirname
