"""Issue 44, route 4: nothing shared between jobs can be written from a box: the bare cache's
objects (a hard link a box could `chmod` counts), the checkout's keep and its hooks, a
shared setup's own git directory, another setup's tree.

A checkout shares no inode with the cache; a boxed command (as a test, a setup or a
session runs) that tries `chmod u+w` and an append on every file it can name there changes
none of them.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from conveyor.core.config import Commands
from conveyor.sandbox import Box
from conveyor.verify import setup_step
from conveyor.verify.boxing import Opening, wrapped
from conveyor.verify.context import Context
from tests.contract.job.hostile_git import HostileJob, hostile_job

# Tries to make each named file writable and append to it; prints each that took.
ATTEMPT = """
for f in "$@"; do
  chmod u+w "$f" 2>/dev/null
  if printf 'x' >> "$f" 2>/dev/null; then echo "wrote $f"; fi
done
for d in "$@"; do
  [ -d "$d" ] && touch "$d/planted" 2>/dev/null && echo "made $d/planted"
done
exit 0
"""


@pytest.fixture
def job(tmp_path: Path, box: Box) -> Iterator[HostileJob]:
    """A writer's checkout, boxed as a job's is (one token kind is enough here: this
    overrides the conftest's, which runs each test with both)."""
    yield from hostile_job(tmp_path / "job", box, "token_env")


def _files(*roots: Path) -> list[Path]:
    return [p for root in roots for p in sorted(root.rglob("*")) if p.is_file()]


def _digests(paths: list[Path]) -> dict[Path, tuple[str, int]]:
    return {p: (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mode) for p in paths}


def test_a_checkout_shares_no_file_with_the_cache(job: HostileJob) -> None:
    """No inode of the checkout (its work tree and the agent's `.git`) is one of the cache's:
    the cache's packs are linked into the keep, which no box can write, never into `.git`."""
    cache = {(s.st_dev, s.st_ino) for p in _files(job.cache) if (s := p.stat())}
    mine = {(s.st_dev, s.st_ino) for p in _files(job.repo.path) if (s := p.stat())}
    assert cache
    assert not cache & mine


def test_a_boxed_command_changes_nothing_of_the_cache_the_keep_or_its_hooks(
    job: HostileJob,
) -> None:
    """A command in the checkout (as verify runs a test) tries every file of the cache, the
    keep (objects, config, hooks) and the agent's own objects (its to write): nothing of
    the cache or the keep changes, by its path or through a link."""
    keep = job.repo.git_dir
    targets = _files(job.cache, keep)
    before = _digests(targets)
    own = _files(job.repo.path / ".git" / "objects")
    folders = [keep / "hooks", keep / "objects" / "pack", job.cache / "objects" / "pack"]
    argv = ["sh", "-c", ATTEMPT, "sh", *map(str, [*targets, *own]), *map(str, folders)]
    done = subprocess.run(
        wrapped(job.boxing, Opening(job.repo.path, ()), {}, argv),
        cwd=job.repo.path,
        capture_output=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    wrote = done.stdout.decode().splitlines()
    assert not [line for line in wrote if str(job.cache) in line or str(keep) in line]
    assert _digests(targets) == before
    assert not any((folder / "planted").exists() for folder in folders)


def test_setup_writes_neither_its_own_git_directory_nor_another_setups_tree(
    job: HostileJob, tmp_path: Path
) -> None:
    """A shared setup runs in its build tree (its `.git` its own to write); it cannot touch
    the build's keep (`<env>/git`), which Conveyor reads it through, nor another
    environment's tree, nor the job's keep and the cache."""
    envs = job.repo.path.parents[2] / "envs"
    other = envs / "another-key" / "tree"
    other.mkdir(parents=True)
    (other / "setup-made.txt").write_text("theirs\n")
    probe = tmp_path / "probe.sh"
    probe.write_text(ATTEMPT)
    names = " ".join(
        shlex.quote(str(p))
        for p in (other / "setup-made.txt", other, job.repo.git_dir / "config", job.cache)
    )
    # The setup also tries its own keep, whose path it derives from where it runs.
    setup = (
        f'sh {shlex.quote(str(probe))} "$PWD/../git/config" "$PWD/../git/objects/pack" '
        f'"$PWD/../git/HEAD" {names} > .attempts; git status --short && touch .git-works; exit 0'
    )
    ctx = Context(
        job.repo.path,
        Commands(test="true", setup=setup),
        {"PATH": os.environ["PATH"]},
        tmp_path / "logs",
        envs_dir=envs,
        boxing=job.boxing,
        git_dir=job.repo.git_dir,
    )
    prepared = setup_step.prepare(ctx, "setup", ctx.tree, "true")
    assert prepared.result.ok, prepared.result.tail
    assert prepared.shared is not None
    build = prepared.shared.build
    assert (build / ".attempts").read_text() == ""
    assert (other / "setup-made.txt").read_text() == "theirs\n"
    assert (build / ".git-works").exists(), "setup's own git works in the build"
