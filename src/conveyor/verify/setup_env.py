"""One set-up environment per repository and dependency files, reused by every tree and job.

The setup command runs once per key (the command and the content of the
dependency files: lockfiles, requirements, pyproject…) in a stable folder,
`<envs>/<key>/tree`, holding the commit's files. What setup made there is given to
each tree that runs the tests, so a fresh checkout or a temporary worktree tests at
once: the top-level entries git does not track (a `.venv`, `node_modules`,
`*.egg-info`) are linked in, and the untracked files it made inside tracked folders
(setuptools-scm's `write_to`, an extension compiled in place, a generated parser)
are copied in. Test commands get the tree's import roots first on PYTHONPATH, so an
editable install made in the stable folder imports the tree's own code; the folder's
own Python files and their installed copies are canaries (`verify.canary`), so a
command that bypasses PYTHONPATH is caught, never silently tested against that copy.
`ready.json` records the build (`EnvRecord`).

The folder's own git directory is `<envs>/<key>/git`, a keep of its own: Conveyor reads
the build through it. The build's `.git` is a repository setup may write (a tool that
installs hooks), borrowing that keep's objects; the setup box sees the keep read-only,
so it can neither change what Conveyor reads nor write an object another job clones.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import asdict, dataclass, field
from pathlib import Path

from conveyor.core.paths import matches_any
from conveyor.git import plain
from conveyor.git.checkout import file_lock
from conveyor.git.keep import AGAINST_WORK_TREE, keep_clone_args, make_agent_repo
from conveyor.git.plain import Tree
from conveyor.git.runner import GitEnv, Repo
from conveyor.verify.tree_links import inside

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
# The record's layout; an environment built under another one is built again (3: the
# build is read through its own keep, `<env>/git`; 4: the products bound to its tree).
LAYOUT = 4
# What setup leaves inside tracked folders that is no product of it: caches.
_CACHES = ("__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache")


@dataclass(frozen=True)
class EnvRecord:
    """A finished build: its top-level products, the files it made inside tracked folders,
    the import roots its editable installs name, the digest of its pointer files, the
    blob ids of the tracked files it was built from, and the products bound to its tree
    (`verify.build_dirs`: an out-of-source build; then nothing is shared)."""

    products: tuple[str, ...]
    nested: tuple[str, ...] = ()
    roots: tuple[str, ...] = ()
    pointers: str = ""
    files: dict[str, str] = field(default_factory=dict)
    bound: tuple[str, ...] = ()


def _tracked(tree: Tree) -> tuple[str, ...]:
    out = plain.git(tree, "ls-files", "-z")
    return tuple(p.decode("utf-8", errors="surrogateescape") for p in out.split(b"\0") if p)


def env_key(tree: Tree, setup: str, lockfiles: Sequence[str]) -> str:
    """The environment's key for `tree`: the setup command and its dependency files' content."""
    digest = hashlib.sha256(setup.encode())
    globs = (*DEPENDENCY_FILES, *lockfiles)
    for path in _tracked(tree):
        if matches_any(path, globs) and (tree.work / path).is_file():
            digest.update(f"\0{path}\0".encode())
            digest.update((tree.work / path).read_bytes())
    return digest.hexdigest()[:20]


def build_tree(env_dir: Path) -> Tree:
    """The environment's build folder, read through its own keep."""
    return Tree(env_dir / "tree", env_dir / "git")


def start_build(tree: Tree, env_dir: Path) -> Tree:
    """A clean `<env_dir>/tree` holding `tree`'s files: its keep `<env_dir>/git` a clone of
    `tree`'s repository (objects hard-linked, tags included; it outlives the job that made
    it), its `.git` one setup may write, so setup tools that ask git (setuptools-scm) work.
    """
    shutil.rmtree(env_dir, ignore_errors=True)
    env_dir.mkdir(parents=True)
    build = build_tree(env_dir)
    head = plain.head(tree)
    source = plain.git(tree, "rev-parse", "--path-format=absolute", "--git-common-dir")
    clone = ["clone", "--quiet", "--no-checkout", f"--separate-git-dir={build.git_dir}"]
    clone += keep_clone_args()
    plain.git_in(env_dir, *clone, "--", source.decode().strip(), str(build.work))
    keep = Repo(build.work, GitEnv(git_dir=build.git_dir))
    plain.git(build, "checkout", "--quiet", "--detach", head)
    changed = plain.git(tree, "diff", AGAINST_WORK_TREE, "--name-only", "-z", "HEAD").split(b"\0")
    for raw in changed:
        if not raw:
            continue
        path = raw.decode("utf-8", errors="surrogateescape")
        origin, target = tree.work / path, build.work / path
        if not inside(build.work, target.parent):
            continue
        target.unlink(missing_ok=True)
        if origin.is_symlink():  # the tree's link, as a link: never what it names
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(origin.readlink())
        elif origin.is_file() and inside(tree.work, origin):
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(origin, target)
    make_agent_repo(keep, None, None)
    return build


@dataclass(frozen=True)
class SharedEnv:
    """The shared environment a tree was given: its folder and its record."""

    env_dir: Path
    record: EnvRecord

    @property
    def build(self) -> Path:
        """The folder setup ran in (its tracked Python files are canaries)."""
        return self.env_dir / "tree"


def products(build: Tree) -> tuple[str, ...]:
    """The top-level entries of the build tree git does not track (what setup made)."""
    names = {p.split("/", 1)[0] for p in _tracked(build)} | {".git"}
    return tuple(sorted(p.name for p in build.work.iterdir() if p.name not in names))


def nested_products(build: Tree) -> tuple[str, ...]:
    """The untracked files and folders setup made inside tracked folders (caches left out)."""
    out = plain.git(build, "ls-files", "-z", "--others", "--directory")
    found = []
    for raw in out.split(b"\0"):
        path = raw.decode("utf-8", errors="surrogateescape").rstrip("/")
        parts = path.split("/")
        if len(parts) < 2 or any(p in _CACHES for p in parts) or path.endswith(".pyc"):
            continue
        found.append(path)
    return tuple(sorted(found))


def link_products(source: Path, record: EnvRecord, tree: Tree) -> None:
    """Give `tree` setup's products unless present (kept out of git's view).

    Top-level products are linked; the files made inside tracked folders are copied,
    so a setup or test writing them in one tree never changes them for the others.
    """
    given = []
    for name in record.products:
        target = tree.work / name
        if target.exists() or target.is_symlink():
            continue
        target.symlink_to(source / name, target_is_directory=(source / name).is_dir())
        given.append(name)
    for path in record.nested:
        origin, target = source / path, tree.work / path
        if target.exists() or target.is_symlink() or not target.parent.is_dir():
            continue
        if not inside(tree.work, target.parent) or not inside(source, origin.parent):
            continue  # behind a link the tree (or setup) made: somewhere else on the machine
        if origin.is_dir() and not origin.is_symlink():
            shutil.copytree(origin, target, symlinks=True)
        else:
            shutil.copy2(origin, target, follow_symlinks=False)
        given.append(path)
    if given:
        _exclude(tree, given)


def unlink_products(source: Path, record: EnvRecord, tree: Path) -> None:
    """Remove from `tree` the links into the shared environment (before a setup of its own)."""
    for name in record.products:
        target = tree / name
        if target.is_symlink() and target.resolve().is_relative_to(source.resolve()):
            target.unlink()


def _exclude(tree: Tree, names: Sequence[str]) -> None:
    """Hide `names` from git in the tree's git directory (the keep's `info/exclude`, which
    the agent's repository reads as its `core.excludesFile`)."""
    common = plain.git(tree, "rev-parse", "--path-format=absolute", "--git-common-dir")
    exclude = Path(common.decode().strip()) / "info" / "exclude"
    exclude.parent.mkdir(parents=True, exist_ok=True)
    have = exclude.read_text().splitlines() if exclude.is_file() else []
    new = [f"/{n}" for n in names if f"/{n}" not in have]
    if new:
        with exclude.open("a") as out:
            out.write("".join(f"{line}\n" for line in new))


def ready_record(env_dir: Path) -> EnvRecord | None:
    """The record of a finished environment, or None when it is not (yet) built."""
    try:
        data = json.loads((env_dir / READY).read_text())
        if data.get("layout") != LAYOUT:
            return None
        return EnvRecord(
            products=tuple(str(p) for p in data["products"]),
            nested=tuple(str(p) for p in data["nested"]),
            roots=tuple(str(p) for p in data["roots"]),
            pointers=str(data["pointers"]),
            files={str(k): str(v) for k, v in data["files"].items()},
            bound=tuple(str(p) for p in data["bound"]),
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def env_lock(env_dir: Path) -> AbstractContextManager[None]:
    """The lock held while the environment at `env_dir` is built or read."""
    return file_lock(env_dir.with_name(f"{env_dir.name}.lock"))


def finish_build(env_dir: Path, record: EnvRecord) -> None:
    """Mark the environment built, with its record."""
    (env_dir / READY).write_text(json.dumps({"layout": LAYOUT, **asdict(record)}))


def python_path(tree: Path, roots: Sequence[str], inherited: str | None) -> str:
    """PYTHONPATH with the tree, its `src/` and the editable installs' roots first."""
    parts = [str(tree)]
    if (tree / "src").is_dir():
        parts.append(str(tree / "src"))
    parts += [str(tree / r) for r in roots if r and str(tree / r) not in parts]
    if inherited:
        parts.append(inherited)
    return ":".join(parts)
