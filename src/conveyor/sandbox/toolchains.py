"""The version managers and tool installers users keep under their home, and their roots.

Each one's root is where its own code, shims and installed versions lie: a shim (pyenv's,
asdf's, mise's, volta's, rustup's proxies) runs the manager, which picks a version from
the version files (`.python-version`, `.tool-versions`, `.nvmrc`, `rust-toolchain.toml`)
or its own default inside the root, so the box gives back the whole root read-only.
The box's `$HOME` is not the owner's, so a manager that finds its root from `$HOME`
would look in the wrong place: the root's variable is set to the real one (`variables`).
A root never includes the files named in `skip` (cargo's registry token).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Manager:
    """One version manager or installer: its root's variable and where the root is by
    default (`home` under `$HOME`, `data` under `$XDG_DATA_HOME`, or an absolute path)."""

    name: str
    variable: str
    default: str
    base: str = "home"  # home | data | absolute
    sets_variable: bool = True  # whether the box gets `variable` (it finds the root by it)


MANAGERS = (
    Manager("pyenv", "PYENV_ROOT", ".pyenv"),
    Manager("asdf", "ASDF_DATA_DIR", ".asdf"),
    Manager("mise", "MISE_DATA_DIR", "mise", "data"),
    Manager("nvm", "NVM_DIR", ".nvm"),
    Manager("fnm", "FNM_DIR", "fnm", "data"),
    Manager("volta", "VOLTA_HOME", ".volta"),
    Manager("rustup", "RUSTUP_HOME", ".rustup"),
    Manager("sdkman", "SDKMAN_DIR", ".sdkman"),
    Manager("bun", "BUN_INSTALL", ".bun", sets_variable=False),
    Manager("deno", "DENO_INSTALL", ".deno", sets_variable=False),
    Manager("pnpm", "PNPM_HOME", "pnpm", "data", sets_variable=False),
    Manager("uv's Pythons", "UV_PYTHON_INSTALL_DIR", "uv/python", "data"),
    Manager("uv's tools", "UV_TOOL_DIR", "uv/tools", "data", sets_variable=False),
    Manager("pipx", "PIPX_HOME", "pipx", "data", sets_variable=False),
    Manager("pipx", "PIPX_HOME", ".local/pipx", sets_variable=False),
    Manager("poetry", "POETRY_HOME", "pypoetry", "data", sets_variable=False),
    Manager("Homebrew", "HOMEBREW_PREFIX", "/home/linuxbrew/.linuxbrew", "absolute"),
    Manager("Homebrew", "HOMEBREW_PREFIX", ".linuxbrew", "home", sets_variable=False),
    Manager("conda", "CONDA_ROOT", "miniconda3", sets_variable=False),
    Manager("conda", "CONDA_ROOT", "miniforge3", sets_variable=False),
    Manager("conda", "CONDA_ROOT", "anaconda3", sets_variable=False),
    Manager("Go", "GOROOT", "sdk", sets_variable=False),
)
# A cargo home holds the crates.io token and a registry cargo writes: only its `bin`
# (rustup's proxies and `cargo install`ed tools) is a tool folder.
CARGO_BIN = Manager("cargo", "CARGO_HOME", ".cargo", sets_variable=False)


@dataclass(frozen=True)
class Root:
    """A manager's root on this machine."""

    manager: Manager
    path: Path


def _root(manager: Manager, environ: Mapping[str, str]) -> Path | None:
    named = environ.get(manager.variable)
    if named:
        return Path(named)
    home = environ.get("HOME")
    if manager.base == "absolute":
        return Path(manager.default)
    if manager.base == "data":
        data = environ.get("XDG_DATA_HOME") or (f"{home}/.local/share" if home else None)
        return Path(data) / manager.default if data else None
    return Path(home) / manager.default if home else None


def manager_roots(environ: Mapping[str, str]) -> tuple[Root, ...]:
    """The managers' roots that exist on this machine (each once)."""
    found: dict[Path, Root] = {}
    for manager in MANAGERS:
        path = _root(manager, environ)
        if path is not None and path.is_absolute() and path.is_dir():
            found.setdefault(path, Root(manager, path))
    return tuple(found.values())


def cargo_bin(environ: Mapping[str, str]) -> Path | None:
    """The cargo home's `bin`, when it exists."""
    home = environ.get("CARGO_HOME") or (
        f"{environ['HOME']}/{CARGO_BIN.default}" if environ.get("HOME") else None
    )
    folder = Path(home) / "bin" if home else None
    return folder if folder is not None and folder.is_dir() else None


def root_variables(roots: tuple[Root, ...]) -> dict[str, str]:
    """The variables a box sets so each manager finds its real root, not one under the
    box's own `$HOME`."""
    return {r.manager.variable: str(r.path) for r in roots if r.manager.sets_variable}
