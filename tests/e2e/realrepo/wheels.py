"""A local package index made from this venv: fixture projects' setup runs pip offline.

A fixture's setup is the one a user writes (`python -m venv .venv && .venv/bin/pip
install -e .`), with `--no-index --find-links WHEELHOUSE` so pip's isolated build and
the install take real distributions from here, never from the network. Each wheel is
an installed distribution of this venv packed again (its RECORD's files with a new
RECORD): setuptools and setuptools-scm are pinned in the test extra for this.
"""

from __future__ import annotations

import base64
import hashlib
import re
import zipfile
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement

# Left out of a packed wheel: the installer's own records, and what it compiled.
_INSTALLER_FILES = ("INSTALLER", "REQUESTED", "RECORD", "direct_url.json", "uv_cache.json")


def _closure(names: tuple[str, ...]) -> list[metadata.Distribution]:
    """The distributions `names` need to install here, their dependencies included."""
    seen: dict[str, metadata.Distribution] = {}
    todo = list(names)
    while todo:
        key = re.sub(r"[-_.]+", "-", todo.pop()).lower()
        if key in seen:
            continue
        dist = metadata.distribution(key)
        seen[key] = dist
        for line in dist.requires or []:
            req = Requirement(line)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                todo.append(req.name)
    return list(seen.values())


def _digest(data: bytes) -> str:
    raw = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def pack(dist: metadata.Distribution, dest: Path) -> Path:
    """`dist` as a pure-Python wheel in `dest`."""
    name = re.sub(r"[-_.]+", "_", dist.metadata["Name"]).lower()
    version = dist.version
    wheel = dest / f"{name}-{version}-py3-none-any.whl"
    info = f"{name}-{version}.dist-info"
    rows = []
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as out:
        for file in dist.files or []:
            path = str(file)
            if path.startswith("..") or "__pycache__" in path or path.endswith(".pyc"):
                continue
            parts = path.split("/")
            if parts[0].endswith(".dist-info"):
                if parts[-1] in _INSTALLER_FILES:
                    continue
                path = "/".join([info, *parts[1:]])
            data = Path(str(file.locate())).read_bytes()
            out.writestr(path, data)
            rows.append(f"{path},{_digest(data)},{len(data)}")
        rows.append(f"{info}/RECORD,,")
        out.writestr(f"{info}/RECORD", "\n".join(rows) + "\n")
    return wheel


def make_wheelhouse(dest: Path, names: tuple[str, ...]) -> Path:
    """A folder of wheels for `names` and what they need, for `pip --find-links`."""
    dest.mkdir(parents=True, exist_ok=True)
    for dist in _closure(names):
        pack(dist, dest)
    return dest
