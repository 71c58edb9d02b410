"""What a finished setup says about itself: where its editable installs point, its file list.

- **Roots.** An editable install records the folders it imports from in the
  environment's `site-packages` (`*.pth` lines, setuptools' `__editable__` finders,
  `*.egg-link`). Those folders inside the build tree (`src`, `lib`, the tree itself)
  name the tree's own import roots, which go first on `PYTHONPATH` (a `lib/` layout
  with `package_dir` included).
- **Pointers.** A digest of those files: when it changes, something installed into the
  shared environment after it was built (a setup run in a tree linked to it) and it
  no longer imports only what its build made; it is built again.
- **Manifest.** The blob id of every tracked file of a tree (uncommitted changes
  hashed as they are), to tell which files differ between the build and a tree.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from pathlib import Path

from conveyor.git import plain
from conveyor.git.keep import AGAINST_WORK_TREE
from conveyor.git.plain import Tree

_SITES = ("lib/python*/site-packages", "lib64/python*/site-packages", "Lib/site-packages")
_POINTERS = ("*.pth", "__editable__*", "*.egg-link")


def site_dirs(build: Path, products: Sequence[str]) -> list[Path]:
    """The `site-packages` folders of the environments setup made (a `.venv`, …)."""
    found: list[Path] = []
    for name in products:
        top = build / name
        if not top.is_dir() or top.is_symlink():
            continue
        for pattern in _SITES:
            found += sorted(top.glob(pattern)) + sorted(top.glob(f"*/{pattern}"))
    return found


def pointer_files(build: Path, products: Sequence[str]) -> list[Path]:
    """The files of the environment's `site-packages` that say where imports come from."""
    files: list[Path] = []
    for site in site_dirs(build, products):
        for pattern in _POINTERS:
            files += sorted(p for p in site.glob(pattern) if p.is_file())
    return files


def pointers_digest(build: Path, products: Sequence[str]) -> str:
    """A digest of the pointer files' names and content."""
    digest = hashlib.sha256()
    for path in pointer_files(build, products):
        digest.update(f"\0{path.relative_to(build)}\0".encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:20]


def _root_of(build: Path, rel: str) -> str:
    """The import root a pointer into the build names: a package's or module's parent."""
    target = build / rel if rel else build
    if target.is_file() or (target / "__init__.py").is_file():
        parent = str(Path(rel).parent)
        return "" if parent == "." else parent
    return rel


def editable_roots(build: Path, products: Sequence[str]) -> tuple[str, ...]:
    """The tree-relative folders the environment's editable installs import from."""
    pattern = re.compile(re.escape(str(build)) + r"((?:/[^\s'\"\\,:\]\)}]*)?)")
    roots: list[str] = []
    for path in pointer_files(build, products):
        text = path.read_text(encoding="utf-8", errors="replace")
        for match in pattern.finditer(text):
            rel = match.group(1).strip("/")
            if rel.split("/", 1)[0] in products:
                continue  # inside what setup made (a strict-mode link tree, the venv)
            root = _root_of(build, rel)
            if root not in roots:
                roots.append(root)
    return tuple(roots)


def manifest(tree: Tree) -> dict[str, str]:
    """Every tracked file's blob id as it is on disk (a deleted one is absent)."""
    entries: dict[str, str] = {}
    for line in plain.git(tree, "ls-files", "-s", "-z").split(b"\0"):
        if line:
            meta, _, path = line.partition(b"\t")
            entries[path.decode("utf-8", errors="surrogateescape")] = meta.split()[1].decode()
    out = plain.git(tree, "diff", AGAINST_WORK_TREE, "--name-only", "-z")
    dirty = [p for p in out.decode().split("\0") if p]
    present = [p for p in dirty if (tree.work / p).is_file()]
    for gone in set(dirty) - set(present):
        entries.pop(gone, None)
    if present:
        out = plain.git(tree, "hash-object", "--stdin-paths", stdin="\n".join(present).encode())
        entries.update(zip(present, out.decode().split(), strict=True))
    return entries


def differing(old: dict[str, str], new: dict[str, str]) -> tuple[str, ...]:
    """The paths whose content differs between two manifests (added and deleted ones too)."""
    return tuple(sorted(p for p in old.keys() | new.keys() if old.get(p) != new.get(p)))
