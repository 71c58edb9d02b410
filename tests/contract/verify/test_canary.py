"""The shared setup's copies of the code become canaries: its tracked files and installed copies."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conveyor.git.plain import Tree
from conveyor.verify import canary
from tests.contract.verify.repo_kit import GitRepo

SITE = ".venv/lib/python3.11/site-packages"
CODE = "def mul(a, b):\n    return a + b\n"


def _build(tmp_path: Path) -> GitRepo:
    """A build tree with `src/calc` committed (an empty subpackage too)."""
    build = GitRepo.init(tmp_path / "build")
    files = {"src/calc/__init__.py": CODE, "src/calc/util/__init__.py": "", "README.md": "x\n"}
    build.commit(files, "base")
    return build


def test_a_non_editable_installs_copies_become_canaries_and_their_import_is_caught(
    tmp_path: Path,
) -> None:
    """`pip install .` copied `calc` into site-packages: importing that copy fires the canary."""
    build = _build(tmp_path)
    site = build.path / SITE
    (site / "calc" / "util").mkdir(parents=True)
    (site / "calc" / "__init__.py").write_text(CODE)
    (site / "calc" / "util" / "__init__.py").write_text("")
    log = tmp_path / "canary.log"

    planted = canary.plant(Tree.of(build.path), log, (".venv",))

    assert planted == 4
    code = f"import sys; sys.path.insert(0, {str(site)!r}); import calc"
    argv = [sys.executable, "-I", "-c", code]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    assert done.returncode != 0
    assert canary.reached_since(tmp_path, 0, done.stderr)
    assert str(site / "calc" / "__init__.py") in log.read_text()


def test_only_same_bytes_below_an_import_root_are_copies(tmp_path: Path) -> None:
    """A dependency's own `util` package (same empty `__init__.py`) and changed code stay."""
    build = _build(tmp_path)
    site = build.path / SITE
    (site / "util").mkdir(parents=True)
    (site / "util" / "__init__.py").write_text("")
    (site / "calc").mkdir()
    (site / "calc" / "__init__.py").write_text(CODE + "# another version\n")

    canary.plant(Tree.of(build.path), tmp_path / "canary.log", (".venv",))

    assert (site / "util" / "__init__.py").read_text() == ""
    assert (site / "calc" / "__init__.py").read_text().endswith("# another version\n")


def test_a_copy_hard_linked_from_an_installers_cache_leaves_the_cache_as_it_was(
    tmp_path: Path,
) -> None:
    """uv links installed files from its cache: the canary is a new file, the cache intact."""
    build = _build(tmp_path)
    cached = tmp_path / "uv-cache" / "calc" / "__init__.py"
    cached.parent.mkdir(parents=True)
    cached.write_text(CODE)
    site = build.path / SITE / "calc"
    site.mkdir(parents=True)
    (site / "__init__.py").hardlink_to(cached)

    canary.plant(Tree.of(build.path), tmp_path / "canary.log", (".venv",))

    assert cached.read_text() == CODE
    assert canary.canary_source(tmp_path / "canary.log") == (site / "__init__.py").read_text()
