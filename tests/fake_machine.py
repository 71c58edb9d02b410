"""A home shaped like a user's: pyenv, nvm, pipx, rustup's cargo, a hand-installed tool, secrets.

Every tool is a small script that says who it is, laid out as the real installer lays
it: pyenv's shims run `libexec/pyenv exec`, which picks the version from
`.python-version` (upward from the working folder), `PYENV_VERSION` or the root's
`version`; nvm's node lies in `versions/node/vX/bin`; pipx's `~/.local/bin/black` is a
link into its venv, whose shebang names the venv's python, itself a link to a pyenv
version; cargo's `bin` sits beside `credentials.toml`. The secrets (an ssh key, the
conveyor config with a token, `.npmrc`, cargo's token) must never show in a box.
"""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

PYENV_SHIM = """#!/usr/bin/env bash
set -e
program="${{0##*/}}"
export PYENV_ROOT="{root}"
exec "{root}/libexec/pyenv" exec "$program" "$@"
"""
PYENV_LIBEXEC = """#!/usr/bin/env bash
set -e
[ "$1" = exec ] || { echo "pyenv: only exec" >&2; exit 2; }
program="$2"; shift 2
version="$PYENV_VERSION"
dir="$PWD"
while [ -z "$version" ] && [ -n "$dir" ]; do
  [ -f "$dir/.python-version" ] && version="$(head -n1 "$dir/.python-version")"
  dir="${dir%/*}"
done
[ -n "$version" ] || version="$(cat "$PYENV_ROOT/version")"
target="$PYENV_ROOT/versions/$version/bin/$program"
[ -x "$target" ] || { echo "pyenv: version '$version' is not installed" >&2; exit 127; }
exec "$target" "$@"
"""
# A pyenv version's python: says its version, then runs the real interpreter.
VERSION_PYTHON = """#!/bin/sh
if [ "$1" = --version ]; then echo "Python {version} (fake pyenv)"; exit 0; fi
exec {real} "$@"
"""


@dataclass(frozen=True)
class FakeMachine:
    """The fake home's paths a test checks."""

    home: Path
    pyenv: Path
    nvm: Path
    node_bin: Path
    pipx: Path
    local_bin: Path
    cargo_bin: Path
    hand_tool: Path
    secrets: tuple[Path, ...]
    config_dir: Path

    def environ(self, path: str = "/usr/bin:/bin") -> dict[str, str]:
        """The owner's environment: HOME, and PATH as their shell profile sets it."""
        search = [self.pyenv / "shims", self.node_bin, self.local_bin, self.cargo_bin]
        return {"HOME": str(self.home), "PATH": ":".join([*map(str, search), path])}


def write_script(path: Path, text: str) -> Path:
    """An executable file at `path` (its folders made) holding `text`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)
    return path


def make_fake_machine(home: Path, versions: tuple[str, ...] = ("3.11.9", "3.12.4")) -> FakeMachine:
    """A user's home under `home` (created), its tools installed as their installers do."""
    real = Path(sys.base_prefix) / "bin" / f"python{sys.version_info[0]}.{sys.version_info[1]}"
    pyenv = home / ".pyenv"
    write_script(pyenv / "libexec" / "pyenv", PYENV_LIBEXEC)
    for name in ("python", "python3"):
        write_script(pyenv / "shims" / name, PYENV_SHIM.format(root=pyenv))
    for version in versions:
        python = write_script(
            pyenv / "versions" / version / "bin" / "python",
            VERSION_PYTHON.format(version=version, real=real),
        )
        (python.parent / "python3").symlink_to("python")
    (pyenv / "version").write_text(f"{versions[-1]}\n")
    nvm = home / ".nvm"
    node_bin = nvm / "versions" / "node" / "v20.11.1" / "bin"
    write_script(node_bin / "node", "#!/bin/sh\necho v20.11.1-fake-nvm\n")
    write_script(nvm / "nvm.sh", "nvm() { echo nvm; }\n")
    pipx = home / ".local" / "share" / "pipx"
    venv = pipx / "venvs" / "black"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").symlink_to(pyenv / "versions" / versions[0] / "bin" / "python")
    base = pyenv / "versions" / versions[0] / "bin"
    (venv / "pyvenv.cfg").write_text(f"home = {base}\nversion = {versions[0]}\n")
    black = write_script(venv / "bin" / "black", f"#!{venv}/bin/python\nprint('black, fake')\n")
    local_bin = home / ".local" / "bin"
    local_bin.mkdir(parents=True)
    (local_bin / "black").symlink_to(black)
    hand_tool = home / "tools" / "mytool"
    (hand_tool / "share").mkdir(parents=True)
    (hand_tool / "share" / "data.txt").write_text("mytool data\n")
    write_script(
        hand_tool / "bin" / "mytool",
        '#!/bin/sh\ncat "$(dirname "$(readlink -f "$0")")/../share/data.txt"\n',
    )
    (local_bin / "mytool").symlink_to(hand_tool / "bin" / "mytool")
    cargo = home / ".cargo"
    write_script(cargo / "bin" / "cargo", "#!/bin/sh\necho cargo-fake\n")
    config_dir = home / ".config" / "conveyor"
    secrets = (
        _secret(home / ".ssh" / "id_ed25519"),
        _secret(config_dir / "token"),
        _secret(config_dir / "conveyor.toml"),
        _secret(home / ".npmrc"),
        _secret(cargo / "credentials.toml"),
        _secret(home / ".local" / "share" / "keyrings" / "login.keyring"),
    )
    return FakeMachine(
        home=home,
        pyenv=pyenv,
        nvm=nvm,
        node_bin=node_bin,
        pipx=pipx,
        local_bin=local_bin,
        cargo_bin=cargo / "bin",
        hand_tool=hand_tool,
        secrets=secrets,
        config_dir=config_dir,
    )


def _secret(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"secret-of-{path.name}\n")
    os.chmod(path, 0o600)  # noqa: PTH101 - as the owner keeps it
    return path


def install_real_node(machine: FakeMachine) -> None:
    """Make nvm's node this machine's real one, laid out as nvm installs it: `bin/node`, and
    `bin/npm` a link to npm's script in `lib/node_modules` (here links to the system's)."""
    node = shutil.which("node")
    npm = shutil.which("npm")
    assert node is not None, "the machine has node"
    assert npm is not None, "the machine has npm"
    (machine.node_bin / "node").unlink()
    (machine.node_bin / "node").symlink_to(Path(node).resolve())
    package = Path(npm).resolve().parent.parent  # …/node_modules/npm
    modules = machine.node_bin.parent / "lib" / "node_modules"
    modules.mkdir(parents=True)
    (modules / "npm").symlink_to(package)
    (machine.node_bin / "npm").symlink_to(modules / "npm" / "bin" / "npm-cli.js")
