"""What Conveyor writes into a tree an agent or a setup command wrote, and copies out of it,
never goes through a link there to a file elsewhere on the machine.

Each test points a link at `outside/`, which stands for the owner's files (a home's
dotfiles, an interpreter's library): a committed configuration file or test made a link, a
folder setup replaced by one, an uncommitted link in the checkout. Conveyor's own writes
(the judges' configuration put back, the shared setup's canaries, its products handed to a
tree) and copies (the checkout's uncommitted files into a shared build) run outside every box.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from conveyor.core.verify import Outcome
from conveyor.git.plain import Tree
from conveyor.verify import canary, setup_env
from conveyor.verify.setup_env import EnvRecord
from tests.contract.verify.repo_kit import GitRepo
from tests.contract.verify.tally_kit import HONEST, UNIQUE, check, tally_repo, verify_head

pytestmark = pytest.mark.contract

PRECIOUS = "the owner's own\n"


def _outside(tmp_path: Path, *names: str) -> Path:
    """`outside/` holding `names`, each with the owner's text."""
    folder = tmp_path / "outside"
    folder.mkdir(exist_ok=True)
    for name in names:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(PRECIOUS)
    return folder


def _untouched(folder: Path) -> None:
    for path in folder.rglob("*"):
        if path.is_file():
            assert path.read_text() == PRECIOUS, path


def test_a_test_file_committed_as_a_link_is_put_back_in_the_tree(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """The head adds a `conftest.py` (the suite runs again with the judges' test
    configuration) and commits the base's `tests/test_count.py` as a link to a file outside:
    the base's test goes back as a file of the worktree; the file outside stays as it was."""
    repo, base, _ = tally_repo(tmp_path / "tally")
    outside = _outside(tmp_path, "victim.py")
    (repo.path / "tests" / "test_count.py").unlink()
    (repo.path / "tests" / "test_count.py").symlink_to(outside / "victim.py")
    repo.commit({UNIQUE: HONEST, "conftest.py": "X = 1\n"}, "count_unique, a linked test")
    result = verify_head(repo, base, env, tmp_path / "logs")
    _untouched(outside)
    judged = check(result, "judges-config")
    assert judged.outcome is Outcome.PASSED, judged


def test_a_tests_folder_committed_as_a_link_is_put_back_in_the_tree(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """The head makes `tests/` a link to a folder outside (holding the tests): the base's test
    files go back into the worktree, not into that folder (and reading `tests` at the base,
    a folder there, is no error)."""
    repo, base, _ = tally_repo(tmp_path / "tally")
    outside = _outside(tmp_path)
    (repo.path / "tests").rename(outside / "tests")
    for test in (outside / "tests").iterdir():
        test.write_text(PRECIOUS)
    (repo.path / "tests").symlink_to(outside / "tests", target_is_directory=True)
    repo.commit({UNIQUE: HONEST}, "count_unique, linked tests")
    verify_head(repo, base, env, tmp_path / "logs")
    _untouched(outside)


def _build(tmp_path: Path) -> tuple[GitRepo, Tree]:
    """A checkout with `src/calc` committed, and its tree."""
    repo = GitRepo.init(tmp_path / "checkout")
    repo.commit({"src/calc/__init__.py": "X = 1\n", "setup.cfg": "[x]\n"}, "base")
    return repo, Tree.of(repo.path)


def test_an_uncommitted_link_in_the_checkout_reaches_the_shared_build_as_a_link(
    tmp_path: Path,
) -> None:
    """`setup.cfg` made a link to the owner's file, `src/calc` a link to a folder of theirs:
    the build gets the link, not the file's content, and nothing from behind the folder."""
    repo, tree = _build(tmp_path)
    outside = _outside(tmp_path, "secret", "lib/__init__.py")
    (repo.path / "setup.cfg").unlink()
    (repo.path / "setup.cfg").symlink_to(outside / "secret")
    (repo.path / "src" / "calc" / "__init__.py").unlink()
    (repo.path / "src" / "calc").rmdir()
    (repo.path / "src" / "calc").symlink_to(outside / "lib", target_is_directory=True)
    build = setup_env.start_build(tree, tmp_path / "envs" / "key")
    copied = build.work / "setup.cfg"
    assert copied.is_symlink()
    assert not (build.work / "src" / "calc" / "__init__.py").exists()
    made = [p for p in build.work.rglob("*") if p.is_file() and not p.is_symlink()]
    assert all(PRECIOUS.encode() not in p.read_bytes() for p in made)


def test_a_folder_setup_made_a_link_gets_no_canary(tmp_path: Path) -> None:
    """Setup replaced `src/calc` with a link to the owner's library and `.venv/lib64` with one
    to theirs: canaries land in the build only."""
    repo, tree = _build(tmp_path)
    outside = _outside(tmp_path, "lib/__init__.py", "site/calc/__init__.py")
    (outside / "site" / "calc" / "__init__.py").write_text("X = 1\n")
    (repo.path / "src" / "calc" / "__init__.py").unlink()
    (repo.path / "src" / "calc").rmdir()
    (repo.path / "src" / "calc").symlink_to(outside / "lib", target_is_directory=True)
    lib64 = repo.path / ".venv" / "lib64" / f"python{sys.version_info[0]}.{sys.version_info[1]}"
    lib64.parent.mkdir(parents=True)
    lib64.symlink_to(outside, target_is_directory=True)
    (outside / "site-packages").symlink_to(outside / "site", target_is_directory=True)
    canary.plant(tree, tmp_path / "canary.log", (".venv",))
    assert (outside / "site" / "calc" / "__init__.py").read_text() == "X = 1\n"
    assert (outside / "lib" / "__init__.py").read_text() == PRECIOUS


def test_a_setup_product_is_not_handed_through_a_link_in_the_tree(tmp_path: Path) -> None:
    """The tree's `src/calc` is a link to the owner's folder: the file setup made inside
    `src/calc` in the shared build is not copied there."""
    repo, tree = _build(tmp_path)
    source = tmp_path / "envs" / "key" / "tree"
    (source / "src" / "calc").mkdir(parents=True)
    (source / "src" / "calc" / "_version.py").write_text("V = 1\n")
    outside = _outside(tmp_path, "lib/__init__.py")
    (repo.path / "src" / "calc" / "__init__.py").unlink()
    (repo.path / "src" / "calc").rmdir()
    (repo.path / "src" / "calc").symlink_to(outside / "lib", target_is_directory=True)
    setup_env.link_products(source, EnvRecord((), nested=("src/calc/_version.py",)), tree)
    assert not (outside / "lib" / "_version.py").exists()
