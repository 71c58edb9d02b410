"""The bare cache stays packed: a job's local clone of it links a few pack files, not one
file per object (each in its own fan-out folder)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conveyor.git import Repo, rev_parse, run_git
from conveyor.git.checkout import agent_checkout, update_cache
from tests.contract.git.workrepo import TEST_ENV, WorkRepo

pytestmark = pytest.mark.contract


def _loose_objects(repo: Path) -> list[Path]:
    return [f for d in (repo / "objects").glob("[0-9a-f][0-9a-f]") for f in d.iterdir()]


def test_the_cache_keeps_small_fetches_as_packs_and_a_checkout_of_it_has_every_commit(
    tmp_path: Path, origin: tuple[Repo, WorkRepo]
) -> None:
    """A fetch of a few objects lands as a pack, not as loose files (a local clone links
    every loose file on its own): the cache stays packed and a checkout still has it all."""
    bare, work = origin
    url = bare.path.as_uri()
    cache = update_cache(tmp_path / "cache.git", url, TEST_ENV)
    for n in range(3):
        work.commit({f"n{n}.txt": f"{n}\n"}, f"small change {n}")
        work.push("main")
        update_cache(tmp_path / "cache.git", url, TEST_ENV)
    assert _loose_objects(cache.path) == []
    assert len(list((cache.path / "objects" / "pack").glob("*.pack"))) >= 2
    checkout = agent_checkout(
        cache, tmp_path / "job" / "checkout", url, branch="agent/issue-1", base="main", env=TEST_ENV
    )
    assert rev_parse(checkout, "HEAD") == rev_parse(work.repo, "HEAD")
    counted = run_git(["rev-list", "--count", "HEAD"], cwd=checkout.path, env=TEST_ENV)
    assert counted.stdout.decode().strip() == "5"
    assert (checkout.path / "n2.txt").read_text() == "2\n"
