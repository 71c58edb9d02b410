"""Fixture projects that setuptools builds: the `calc` package as a real, installable project.

Each is a git repository whose history has a tag, with a `pyproject.toml` that
setuptools-scm versions (`write_to` puts `_version.py` inside the package, ignored
by git, as pytest's own does), and a package that imports it. Its setup is what a
user writes first, made offline (`tests/e2e/realrepo/wheels.py`): a venv, then an
editable install of the project with its test extra.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.e2e.realrepo.project import ADD_TEST, BUGGY, FIXED, PY

TAG = "v0.1"
HEADER = "from calc._version import version\n\n__all__ = ['add', 'mul', 'version']\n\n\n"
VERSION_TEST = (
    "from calc import version\n\n\n"
    "def test_the_version_comes_from_the_tag():\n    assert version.startswith('0.')\n"
)
_PYPROJECT = """[build-system]
requires = ["setuptools>=64", "setuptools-scm>=8"]
build-backend = "setuptools.build_meta"

[project]
name = "calc"
dynamic = ["version"]

[project.optional-dependencies]
test = ["pytest"]
{tool}
[tool.setuptools_scm]
write_to = "{root}/calc/_version.py"
"""
# `calc/__init__.py` with `mul` multiplying (what the implementer writes).
FIXED_PACKAGE = HEADER + FIXED
# `lib/` is no layout setuptools finds by itself: `package_dir` names it.
_LIB_TOOL = '\n[tool.setuptools]\npackage-dir = {"" = "lib"}\npackages = ["calc"]\n'
# The venv's own interpreter runs the tests: what its editable install imports counts.
TEST = ".venv/bin/python -m pytest -q -p no:cacheprovider"
# A drive's time limit for these fixtures: each setup builds a venv and an editable install.
DRIVE_TIMEOUT = 540
# The test's own limit (pytest-timeout), past the drive's.
TEST_TIMEOUT = 600


def setup_command(wheelhouse: Path) -> str:
    """`python -m venv .venv && .venv/bin/pip install -e '.[test]'`, taking wheels from here."""
    pip = (
        f".venv/bin/pip install -q --disable-pip-version-check --no-index --find-links {wheelhouse}"
    )
    return f"{PY} -m venv .venv && {pip} -e '.[test]'"


def uv_setup_command(wheelhouse: Path) -> str:
    """The same setup with uv (`uv venv .venv && uv pip install -e '.[test]'`): a quarter of
    pip's CPU time, for the fixtures that set up in every tree."""
    uv = Path(PY).parent / "uv"
    cache = '"$XDG_CACHE_HOME/uv"'  # boxed, setup may write only its tree and the caches
    venv = f"{uv} venv -q --python {PY} .venv"
    pip = f"{uv} pip install -q --python .venv/bin/python --cache-dir {cache}"
    return f"{venv} && {pip} --no-index --find-links {wheelhouse} -e '.[test]'"


def package(root: str) -> str:
    """Where `calc/__init__.py` is in a project whose import root is `root`."""
    return f"{root}/calc/__init__.py"


def built_project(dest: Path, root: str, extra: dict[str, str] | None = None) -> Path:
    """The project with its package under `root` (`src` or `lib`), committed and tagged."""
    tool = _LIB_TOOL if root == "lib" else ""
    files = {
        "pyproject.toml": _PYPROJECT.format(tool=tool, root=root),
        package(root): HEADER + BUGGY,
        "tests/test_add.py": ADD_TEST,
        "tests/test_version.py": VERSION_TEST,
        ".gitignore": f".venv/\n*.egg-info/\n__pycache__/\n{root}/calc/_version.py\n",
        **(extra or {}),
    }
    for path, text in files.items():
        target = dest / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    git = ["git", "-c", "user.name=p", "-c", "user.email=p@p", "-c", "core.hooksPath=/dev/null"]
    subprocess.run([*git, "init", "-q", "-b", "main"], cwd=dest, check=True)
    subprocess.run([*git, "add", "-A"], cwd=dest, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "The calc project"], cwd=dest, check=True)
    subprocess.run([*git, "tag", TAG], cwd=dest, check=True)
    return dest
