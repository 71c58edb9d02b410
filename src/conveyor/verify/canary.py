"""The shared setup's copy of the code, made unusable: a test run that imports it is known.

Setup ran once in `<envs>/<key>/tree`; an editable install made there points at that
folder, so a test command that drops the tree from `PYTHONPATH` (`python -I`, `env -i`,
tox, nox, a script) would silently test that copy instead of the tree under test. Once
setup is done, every tracked Python file of that folder is overwritten (in place, so
hard and symbolic links to it see the same) with a canary: importing it appends a line
to `<envs>/<key>/canary.log` and raises ImportError. A test run after which the log grew
reached the shared copy: its result is thrown away, the bypass is recorded for the
test command, and the tree is set up on its own (`verify.context`). The log may also
grow through another job's run at the same time; that only costs a setup in the tree.

A non-editable install (`pip install .`) copies that code into the environment's
`site-packages`; those copies (same path below an import root, same bytes) become
canaries too, so `python -I` importing the installed copy is caught the same way.

A sandbox that binds the job's tree at `<envs>/<key>/tree` would make the editable
install import the tree itself; the canaries would then never be reached.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

from conveyor.git import plain
from conveyor.git.plain import Tree
from conveyor.verify.env_facts import site_dirs
from conveyor.verify.tree_links import inside

LOG = "canary.log"
_MARK = "conveyor-canary"


def canary_source(log: Path) -> str:
    """The text every tracked Python file of the shared setup's folder is replaced with."""
    return (
        f"# {_MARK}: setup ran in this folder once, for every tree that tests this code.\n"
        "# A test run imports the tree under test, never this copy (Conveyor's README,\n"
        '# "Setup once"); importing it means the test command bypassed that tree.\n'
        "try:\n"
        f"    with open({str(log)!r}, 'a') as _conveyor_log:\n"
        "        _conveyor_log.write(__name__ + ' ' + __file__ + '\\n')\n"
        "except OSError:\n"
        "    pass\n"
        f"raise ImportError({_MARK!r} + ': ' + __file__ + ' is the shared setup copy, "
        "not the tree under test')\n"
    )


def installed_copies(build: Path, tracked: Sequence[str], products: Sequence[str]) -> list[Path]:
    """The files of the environment's `site-packages` that are copies of `tracked` files.

    A non-editable install (`pip install .`) copies the build's code there, as it was
    when setup ran: a file at the same path below an import root (a folder of the build
    that is no package: the build itself, `src/`, `lib/`), with the same bytes.
    """
    copies: list[Path] = []
    sites = site_dirs(build, products)
    for rel in tracked:
        source = build / rel
        parts = rel.split("/")
        # Below an import root only: a folder that is no package itself.
        tails = [
            "/".join(parts[i:])
            for i in range(len(parts))
            if not (build.joinpath(*parts[:i]) / "__init__.py").is_file()
        ]
        for site in sites:
            for tail in tails:
                copy = site / tail
                if copy.is_file() and not copy.is_symlink() and _same(copy, source):
                    copies.append(copy)
    # Where setup made a link (a venv's `lib64 -> lib`), only what lies in the build.
    return [c for c in copies if inside(build, c)]


def _same(one: Path, other: Path) -> bool:
    try:
        return one.read_bytes() == other.read_bytes()
    except OSError:
        return False


def plant(tree: Tree, log: Path, products: Sequence[str] = ()) -> int:
    """Replace every tracked `.py` file under the build `tree`, and their installed copies in
    the environments among `products`, with the canary; how many files that was."""
    build = tree.work
    out = plain.git(tree, "ls-files", "-z", "--", "*.py")
    tracked = [raw.decode("utf-8", errors="surrogateescape") for raw in out.split(b"\0") if raw]
    tracked = [p for p in tracked if (build / p).is_file() and not (build / p).is_symlink()]
    tracked = [p for p in tracked if inside(build, build / p)]  # setup made no folder a link
    copies = installed_copies(build, tracked, products)
    text = canary_source(log)
    for copy in copies:
        copy.unlink()  # a new file: an installer may have hard-linked it from its cache
        copy.write_text(text)
    for rel in tracked:
        (build / rel).write_text(text)
    return len(tracked) + len(copies)


def mark(env_dir: Path) -> int:
    """Where the canary log ends now (read again after a run)."""
    try:
        return (env_dir / LOG).stat().st_size
    except OSError:
        return 0


def reached_since(env_dir: Path, since: int, output: str) -> str:
    """What reached the shared copy since `since` ("" when nothing did).

    The canary's ImportError in the run's output counts too (the log may not be
    writable from where the command ran).
    """
    try:
        with (env_dir / LOG).open("rb") as log:
            log.seek(since)
            seen = log.read(4096).decode("utf-8", errors="replace").strip()
    except OSError:
        seen = ""
    if not seen and _MARK in output:
        seen = next((line.strip() for line in output.splitlines() if _MARK in line), _MARK)
    return seen


def _bypass_file(env_dir: Path, command: str) -> Path:
    return env_dir / f"bypassed-{hashlib.sha256(command.encode()).hexdigest()[:12]}.txt"


def record_bypass(env_dir: Path, command: str, seen: str) -> None:
    """Remember that `command` reaches the shared copy: later trees are set up on their own."""
    _bypass_file(env_dir, command).write_text(f"{command}\n{seen}\n")


def bypassed(env_dir: Path, command: str) -> str:
    """What showed that `command` reaches the shared copy ("" when nothing has)."""
    try:
        lines = _bypass_file(env_dir, command).read_text().splitlines()
    except OSError:
        return ""
    return lines[1] if len(lines) > 1 else "the shared copy was imported"
