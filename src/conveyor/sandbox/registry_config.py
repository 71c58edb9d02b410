"""Where each setup tool reads its registry on the owner's side: pip, uv, npm, yarn, go.

Each reader returns the URLs it found with where it found them, and whether the tool's
own default (PyPI, npm's public registry) was replaced. Only the owner's configuration
is read (the environment, the system's and the owner's files), never the checkout's
(`registries.py` says why). Only registry keys are read; a file's other keys (an
`.npmrc`'s auth token) are never kept.
"""

from __future__ import annotations

import configparser
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path

Found = list[tuple[str, str]]
NPMRC_REGISTRY = re.compile(r"^\s*(@[\w.-]+:)?registry\s*=\s*(\S+)\s*$", re.MULTILINE)


def _read(path: Path) -> str:
    try:
        return path.read_text(errors="replace") if path.is_file() else ""
    except OSError:
        return ""


def _toml(path: Path) -> dict[str, object]:
    try:
        return tomllib.loads(_read(path))
    except tomllib.TOMLDecodeError:
        return {}


def _user(environ: Mapping[str, str], *parts: str) -> Path | None:
    base = environ.get("XDG_CONFIG_HOME") or (
        f"{environ['HOME']}/.config" if environ.get("HOME") else None
    )
    return Path(base, *parts) if base else None


def _pip_files(environ: Mapping[str, str]) -> list[Path]:
    home = environ.get("HOME")
    found = [Path("/etc/pip.conf"), Path("/etc/xdg/pip/pip.conf")]
    found += [p for p in (_user(environ, "pip", "pip.conf"),) if p is not None]
    if home:
        found.append(Path(home) / ".pip" / "pip.conf")
    if environ.get("PIP_CONFIG_FILE"):
        found.append(Path(environ["PIP_CONFIG_FILE"]))
    return found


def _pip(environ: Mapping[str, str]) -> tuple[Found, bool]:
    found: Found = []
    replaced = False
    for path in _pip_files(environ):
        parser = configparser.ConfigParser(interpolation=None)
        try:
            parser.read_string(_read(path))
        except configparser.Error:
            continue
        for section in ("global", "install", "download"):
            if not parser.has_section(section):
                continue
            for key in ("index-url", "extra-index-url", "find-links"):
                for url in parser.get(section, key, fallback="").split():
                    found.append((url, f"{path} {key}"))
                    replaced |= key == "index-url"
    for name in ("PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS"):
        for url in environ.get(name, "").split():
            found.append((url, name))
            replaced |= name == "PIP_INDEX_URL"
    return found, replaced


def _uv_table(table: Mapping[str, object], where: str) -> tuple[Found, bool]:
    found: Found = []
    replaced = False
    for key in ("index-url", "extra-index-url", "find-links"):
        value = table.get(key)
        for url in [value] if isinstance(value, str) else value if isinstance(value, list) else []:
            found.append((str(url), f"{where} {key}"))
            replaced |= key == "index-url"
    entries = table.get("index")
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict) and isinstance(entry.get("url"), str):
            found.append((entry["url"], f"{where} [[index]]"))
            replaced |= bool(entry.get("default"))
    return found, replaced


def _uv(environ: Mapping[str, str]) -> tuple[Found, bool]:
    found: Found = []
    replaced = False
    for path in (Path("/etc/uv/uv.toml"), _user(environ, "uv", "uv.toml")):
        if path is not None:
            more, swapped = _uv_table(_toml(path), str(path))
            found += more
            replaced |= swapped
    for name in ("UV_INDEX_URL", "UV_DEFAULT_INDEX", "UV_EXTRA_INDEX_URL", "UV_INDEX"):
        for value in environ.get(name, "").split():
            found.append((value.split("=", 1)[-1], name))
            replaced |= name in ("UV_INDEX_URL", "UV_DEFAULT_INDEX")
    return found, replaced


def python_indexes(environ: Mapping[str, str]) -> tuple[Found, bool]:
    """The Python indexes the owner's pip and uv are set up for, and whether PyPI was
    replaced."""
    pip, pip_replaced = _pip(environ)
    uv, uv_replaced = _uv(environ)
    return [*pip, *uv], pip_replaced or uv_replaced


def npm_registries(environ: Mapping[str, str]) -> tuple[Found, bool]:
    """The npm registries the owner's npm is set up for (`registry=`, `@scope:registry=`),
    and whether npm's own was replaced."""
    files = [Path("/etc/npmrc")]
    home = environ.get("HOME")
    user = environ.get("NPM_CONFIG_USERCONFIG") or (f"{home}/.npmrc" if home else None)
    files += [Path(user)] if user else []
    found: Found = []
    replaced = False
    for path in files:
        for scope, url in NPMRC_REGISTRY.findall(_read(path)):
            found.append((url, f"{path} {scope}registry"))
            replaced |= not scope
    for name in ("npm_config_registry", "NPM_CONFIG_REGISTRY", "YARN_NPM_REGISTRY_SERVER"):
        if environ.get(name):
            found.append((environ[name], name))
            replaced = True
    return found, replaced


def go_proxies(environ: Mapping[str, str]) -> Found:
    """`GOPROXY`'s proxies (default: proxy.golang.org) and the checksum database."""
    proxy = environ.get("GOPROXY", "https://proxy.golang.org,direct")
    found = [(p, "GOPROXY") for p in re.split(r"[,|]", proxy) if p.startswith("http")]
    sumdb = environ.get("GOSUMDB", "sum.golang.org")
    if sumdb != "off":
        found.append((f"https://{sumdb.split()[0].split('+')[0]}", "GOSUMDB"))
    return found


# The registry settings commands get from the owner's environment, as outside the box.
REGISTRY_VARS = (
    "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS", "PIP_TRUSTED_HOST",
    "UV_INDEX_URL", "UV_DEFAULT_INDEX", "UV_EXTRA_INDEX_URL", "UV_INDEX", "UV_FIND_LINKS",
    "UV_INSECURE_HOST", "npm_config_registry", "NPM_CONFIG_REGISTRY", "YARN_NPM_REGISTRY_SERVER",
    "GOPROXY", "GOSUMDB", "GOPRIVATE", "GONOSUMDB", "GONOPROXY",
)  # fmt: skip


def registry_vars(environ: Mapping[str, str]) -> dict[str, str]:
    """What tells setup's tools, inside the box, the registries they use outside it.

    The box's `$HOME` is not the owner's, so their `~/.npmrc` and uv's user config are
    not read there: the registry variables pass, uv's config file is named
    (`UV_CONFIG_FILE`, given back read-only), and each `registry` line of the owner's
    `.npmrc` becomes an `npm_config_…registry` variable (its other lines, tokens among
    them, never leave the file).
    """
    out = {name: environ[name] for name in REGISTRY_VARS if environ.get(name)}
    user = _user(environ, "uv", "uv.toml")
    if "UV_CONFIG_FILE" in environ:
        out["UV_CONFIG_FILE"] = environ["UV_CONFIG_FILE"]
    elif user is not None and user.is_file():
        out["UV_CONFIG_FILE"] = str(user)
    if any(name.lower() == "npm_config_registry" for name in out):
        return out
    home = environ.get("HOME")
    user_npmrc = environ.get("NPM_CONFIG_USERCONFIG") or (f"{home}/.npmrc" if home else None)
    for path in [Path("/etc/npmrc"), *([Path(user_npmrc)] if user_npmrc else [])]:
        for scope, url in NPMRC_REGISTRY.findall(_read(path)):
            out[f"npm_config_{scope}registry"] = url
    return out
