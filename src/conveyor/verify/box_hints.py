"""Why a boxed command could not run: what the box hid and blocked, with the line that fixes it.

A command that fails inside the box because of the box says so only as `No such file or
directory` or `not found` (exit 127), or as a refused connection. Each absolute path its
output or its words name that exists outside but not in the box, each program it could
not find that the owner's PATH has, each `~/` it names (inside, `~` is the box's own
home), and each host the setup's proxy refused becomes one line naming what was hidden
or blocked and the `[sandbox]` line (or the move) that fixes it. The output is the
repository's code's: a path in a credential store (`~/.ssh`, `~/.aws`, a keyring, …) is
never proposed, so a hostile test cannot have the stop comment ask the owner for it.
"""

from __future__ import annotations

import re
import shlex
import shutil
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from conveyor.core.verify import CommandResult
from conveyor.sandbox.bwrap import mounts
from conveyor.sandbox.plan import BoxPlan
from conveyor.verify.boxing import Boxing, Opening, command_plan

# `sh: 1: foo: not found`, `bash: foo: command not found`, `env: 'foo': No such file…`.
NOT_FOUND = re.compile(r"([A-Za-z0-9_.+-]+)'?: (?:command )?not found")
ENV_MISSING = re.compile(r"env: '?([^\s':]+)'?: No such file or directory")
PATH_WORD = re.compile(r"(?<![\w.~/$-])(/[^\s'\"`:;,()<>|&*?\[\]{}]+)")
SHOWS = ("--ro-bind", "--ro-bind-try", "--bind", "--tmp")
COVERS = ("--tmpfs", "--null")
# A loopback URL: the box's loopback is its own, so one not forwarded is refused there,
# never reaching the proxy that would have named it.
LOOPBACK_URL = re.compile(r"https?://(127\.[0-9.]+|localhost|\[::1\])(?::([0-9]+))?")
MAX_HINTS = 5
# Where credentials live: a hint never asks to give these back, whatever a command's
# output (which the repository's code writes) names.
CREDENTIALS = frozenset({
    ".ssh", ".gnupg", ".aws", ".azure", ".kube", ".docker", ".netrc", ".pypirc", ".npmrc",
    ".git-credentials", ".password-store", "keyrings", "gh", "gcloud", ".gem", ".cargo",
})  # fmt: skip
CANNOT_RUN = (126, 127)


def box_shows(plan: BoxPlan, path: Path) -> bool:
    """Whether a process boxed as `plan` sees `path` (its deepest mount is a bind)."""
    real = path.resolve()
    best: tuple[int, bool] | None = None
    for mount in mounts(plan):
        if mount.option == "--tmp":
            continue  # the box's /tmp is the plan's own: a host path there is not shown
        if mount.option not in (*SHOWS, *COVERS) or not real.is_relative_to(mount.path):
            continue
        depth = len(mount.path.parts)
        if best is None or depth >= best[0]:
            best = (depth, mount.option in SHOWS)
    return best is not None and best[1]


def _root_of(path: Path, home: Path | None) -> Path:
    """What to give back for a hidden file: the folder above its `bin`, else its folder."""
    folder = path.parent if path.is_file() else path
    if folder.name == "bin" and folder.parent != home:
        folder = folder.parent
    return path if folder in (home, Path("/")) else folder


def _strict(plan: BoxPlan, home: Path | None) -> list[Path]:
    return [p.resolve() for p in plan.hidden if p != home]


def _path_hint(plan: BoxPlan, path: Path, home: Path | None) -> str | None:
    if CREDENTIALS & set(path.parts) or not path.exists() or box_shows(plan, path):
        return None
    real = path.resolve()
    if any(real.is_relative_to(s) for s in _strict(plan, home)):
        return (
            f"the box hides {path}: it lies in Conveyor's home, its config folder or a token "
            "file, which no box may see: move it elsewhere"
        )
    root = _root_of(path, home)
    return f'the box hides {path}: add `readable = ["{root}"]` under [sandbox]'


def _tilde_hints(command: str, home: Path | None) -> list[str]:
    if home is None:
        return []
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    found = []
    for word in words:
        rest = word[2:] if word.startswith("~/") else word[6:] if word.startswith("$HOME/") else ""
        if rest and (home / rest).exists():
            found.append(
                f"`{word}` is the box's own HOME inside it, not yours: write {home / rest}"
            )
    return found


def blocked_hints(blocked: Iterable[tuple[str, int]]) -> list[str]:
    """One line for each host the setup's proxy refused, with the line that allows it."""
    hosts = list(
        dict.fromkeys(host if port in (80, 443) else f"{host}:{port}" for host, port in blocked)
    )
    if not hosts:
        return []
    names = ", ".join(f'"{h}"' for h in hosts)
    return [f"the box blocked {', '.join(hosts)}: add {names} to `setup_network` under [sandbox]"]


def loopback_missed(output: str, allowed: Sequence[str]) -> list[tuple[str, int]]:
    """The loopback endpoints `output` names that setup may not reach."""
    found = []
    for host, port in LOOPBACK_URL.findall(output):
        number = int(port) if port else 80
        if f"{host}:{number}" not in allowed and not (number == 80 and host in allowed):
            found.append((host, number))
    return found


def box_hints(
    command: str,
    output: str,
    plan: BoxPlan,
    owner: Mapping[str, str],
    blocked: Sequence[tuple[str, int]] = (),
) -> tuple[str, ...]:
    """What the box hid or blocked that explains a failed `command`, each with its fix.

    `owner` is the owner's environment (their HOME and PATH, as outside the box).
    """
    home = Path(owner["HOME"]) if owner.get("HOME") else None
    found = [*blocked_hints(blocked), *_tilde_hints(command, home)]
    paths = [Path(p) for p in PATH_WORD.findall(f"{command}\n{output}")]
    for name in [*NOT_FOUND.findall(output), *ENV_MISSING.findall(output)]:
        where = shutil.which(name, path=owner.get("PATH", ""))
        if where is not None:
            paths.append(Path(where))
    for path in dict.fromkeys(paths):
        hint = _path_hint(plan, path, home)
        if hint is not None:
            found.append(hint)
    return tuple(dict.fromkeys(found))[:MAX_HINTS]


def explained(
    result: CommandResult,
    boxing: Boxing | None,
    opening: Opening,
    env: Mapping[str, str],
    blocked: Sequence[tuple[str, int]],
    *,
    always: bool = False,
) -> CommandResult:
    """`result` with what the box hid or blocked (`CommandResult.box`), when a boxed command
    could not run (126, 127), a setup failed, or a host was blocked (`always`: any failure)."""
    if boxing is None or not boxing.box.confined or result.ok:
        return result
    if not (always or opening.setup or blocked or result.exit_code in CANNOT_RUN):
        return result
    plan = command_plan(boxing, opening, env, create=False)
    if opening.setup:
        blocked = [*blocked, *loopback_missed(result.tail, boxing.setup_hosts)]
    hints = box_hints(result.command, result.tail, plan, dict(boxing.owner), blocked)
    return replace(result, box=hints) if hints else result
