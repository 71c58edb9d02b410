"""One set-up environment per repository and dependency files, reused by every tree and job.

The setup command runs once per key (the command and the content of the
dependency files: lockfiles, requirements, pyproject…) in a stable folder,
`<envs>/<key>/tree`, holding the commit's files. What setup made there (a
`.venv`, `node_modules`, `*.egg-info`: the top-level entries git does not
track) is linked into each tree that runs the tests, so a fresh checkout or a
temporary worktree tests at once. Test commands get the tree (and its `src/`)
first on PYTHONPATH, so an editable install made in the stable folder still
imports the tree's own code.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Sequence
from contextlib import AbstractContextManager
from pathlib import Path

from conveyor.core.paths import matches_any
from conveyor.git import plain
from conveyor.git.checkout import file_lock

# Files whose content decides what setup installs, besides `paths.lockfiles`.
DEPENDENCY_FILES = (
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "requirements*.txt",
    "requirements/*.txt",
    "*.lock",
    "Pipfile",
    "package.json",
    "package-lock.json",
    "tox.ini",
    "noxfile.py",
)
READY = "ready.json"


def _tracked(tree: Path) -> tuple[str, ...]:
    out = plain.git(tree, "ls-files", "-z")
    return tuple(p.decode("utf-8", errors="surrogateescape") for p in out.split(b"\0") if p)


def env_key(tree: Path, setup: str, lockfiles: Sequence[str]) -> str:
    """The environment's key for `tree`: the setup command and its dependency files' content."""
    digest = hashlib.sha256(setup.encode())
    globs = (*DEPENDENCY_FILES, *lockfiles)
    for path in _tracked(tree):
        if matches_any(path, globs) and (tree / path).is_file():
            digest.update(f"\0{path}\0".encode())
            digest.update((tree / path).read_bytes())
    return digest.hexdigest()[:20]


def start_build(tree: Path, env_dir: Path) -> Path:
    """A clean `<env_dir>/tree`: a git clone of `tree`'s repository holding `tree`'s files.

    A clone (objects hard-linked, tags included), so setup tools that ask git
    (setuptools-scm) work, and it outlives the job that made it.
    """
    shutil.rmtree(env_dir, ignore_errors=True)
    env_dir.mkdir(parents=True)
    build = env_dir / "tree"
    head = plain.head(tree)
    plain.git(env_dir, "clone", "--quiet", "--no-checkout", str(tree), str(build))
    plain.git(build, "checkout", "--quiet", "--detach", head)
    changed = plain.git(tree, "diff", "--name-only", "-z", "HEAD").split(b"\0")
    for raw in changed:
        if not raw:
            continue
        path = raw.decode("utf-8", errors="surrogateescape")
        source, target = tree / path, build / path
        if source.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
        else:
            target.unlink(missing_ok=True)
    return build


def products(build: Path) -> tuple[str, ...]:
    """The top-level entries of the build tree git does not track (what setup made)."""
    names = {p.split("/", 1)[0] for p in _tracked(build)} | {".git"}
    return tuple(sorted(p.name for p in build.iterdir() if p.name not in names))


def link_products(source: Path, made: Sequence[str], tree: Path) -> None:
    """Link each of setup's products into `tree` (kept out of git's view) unless present."""
    linked = []
    for name in made:
        target = tree / name
        if target.exists() or target.is_symlink():
            continue
        target.symlink_to(source / name, target_is_directory=(source / name).is_dir())
        linked.append(name)
    if linked:
        _exclude(tree, linked)


def _exclude(tree: Path, names: Sequence[str]) -> None:
    common = plain.git(tree, "rev-parse", "--git-common-dir").decode().strip()
    exclude = (tree / common).resolve() / "info" / "exclude"
    exclude.parent.mkdir(parents=True, exist_ok=True)
    have = exclude.read_text().splitlines() if exclude.is_file() else []
    new = [f"/{n}" for n in names if f"/{n}" not in have]
    if new:
        with exclude.open("a") as out:
            out.write("".join(f"{line}\n" for line in new))


def ready_products(env_dir: Path) -> tuple[str, ...] | None:
    """The products of a finished environment, or None when it is not (yet) built."""
    try:
        data = json.loads((env_dir / READY).read_text())
    except (OSError, ValueError):
        return None
    made = data.get("products") if isinstance(data, dict) else None
    return tuple(str(p) for p in made) if isinstance(made, list) else None


def env_lock(env_dir: Path) -> AbstractContextManager[None]:
    """The lock held while the environment at `env_dir` is built or read."""
    return file_lock(env_dir.with_name(f"{env_dir.name}.lock"))


def finish_build(env_dir: Path, made: Sequence[str]) -> None:
    """Mark the environment built, with its products."""
    (env_dir / READY).write_text(json.dumps({"products": list(made)}))


def python_path(tree: Path, inherited: str | None) -> str:
    """PYTHONPATH with the tree (and its `src/`) first, then what was there."""
    parts = [str(tree)]
    if (tree / "src").is_dir():
        parts.append(str(tree / "src"))
    if inherited:
        parts.append(inherited)
    return ":".join(parts)
