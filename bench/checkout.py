"""Benchmark: a job's checkout against a fresh clone of the same repository (issue 44).

A repository of real shape is made with `git fast-import` (`FILES` files in a few
folders, `COMMITS` commits each changing a few of them, packed as a forge serves it).
The fresh clone is `git clone` of its `file://` URL (git's own transport: the forge
packs the objects, the clone indexes them, then checks out). A job's checkout is what
`job/workspace.py` does: fetch the bare cache (nothing new), clone it into the keep
(objects hard-linked there, where no box can write), check out the work tree, and give
the checkout the agent's own repository (empty, borrowing the keep's objects, with the
keep's refs and index). The checkout as it was before issue 44 (the cache cloned by path
straight into the checkout, its packs hard-linked into the `.git` boxes write) is timed
beside it. Medians of interleaved runs, in a tmpfs where there is one; the goal is the
issue's: a job's checkout takes at most a tenth of a fresh clone.
"""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

STARTED = time.perf_counter()

from conveyor.git import GitEnv, Identity, run_git  # noqa: E402
from conveyor.git.checkout import CLONE_REFSPEC, agent_checkout, update_cache  # noqa: E402

FILES = 800
COMMITS = 4000
TOUCHED = 8  # files each commit changes
RUNS = 5
# The disk of a loaded VM makes a work tree's thousand file writes vary by seconds from run
# to run, in both timings alike; a tmpfs (as the test gate uses) leaves what differs: git.
SCRATCH = Path("/dev/shm") if Path("/dev/shm").is_dir() else None
GOAL_RATIO = 0.1
TIME_LIMIT_S = 40.0
ENV = GitEnv(identity=Identity("Bench", "bench@example.invalid"))


def _text(n: int, version: int) -> str:
    lines = [f"# module {n}, version {version}"]
    lines += [f"def f{n}_{k}(x):\n    return x * {k} + {version}\n" for k in range(25)]
    return "\n".join(lines)


def make_forge(root: Path) -> Path:
    """The forge's bare repository: FILES files, COMMITS commits on `main`, packed."""
    bare = root / "forge.git"
    run_git(["init", "--quiet", "--bare", "--initial-branch=main", str(bare)], cwd=root, env=ENV)
    out: list[str] = []
    versions = [0] * FILES
    stamp = 1_700_000_000
    for c in range(COMMITS):
        out.append("commit refs/heads/main")
        out.append(f"committer Bench <bench@example.invalid> {stamp + c} +0000")
        message = f"change {c}"
        out.append(f"data {len(message)}\n{message}")
        touched = range(FILES) if c == 0 else [(c * 7 + k * 131) % FILES for k in range(TOUCHED)]
        for n in touched:
            versions[n] += c > 0
            data = _text(n, versions[n]).encode()
            out.append(f"M 100644 inline pkg{n % 30}/mod{n}.py")
            out.append(f"data {len(data)}\n{data.decode()}")
        out.append("")
    stream = "\n".join(out).encode()
    subprocess.run(["git", "fast-import", "--quiet"], cwd=bare, input=stream, check=True)
    run_git(["repack", "-a", "-d", "-q"], cwd=bare, env=ENV)
    return bare


def fresh_clone(url: str, dest: Path) -> float:
    """Seconds for `git clone` of the forge's URL."""
    start = time.perf_counter()
    run_git(["clone", "--quiet", url, str(dest)], cwd=dest.parent, env=ENV)
    return time.perf_counter() - start


def job_checkout(cache: Path, url: str, dest: Path) -> float:
    """Seconds for a job's checkout now: fetch the cache, clone into the keep, the agent's
    own repository."""
    start = time.perf_counter()
    repo = update_cache(cache, url, ENV)
    agent_checkout(repo, dest, url, branch="agent/issue-1", base="main", env=ENV)
    return time.perf_counter() - start


def old_checkout(cache: Path, url: str, dest: Path) -> float:
    """Seconds for the checkout before issue 44: the cache cloned by path into the checkout."""
    start = time.perf_counter()
    repo = update_cache(cache, url, ENV)
    clone = [
        "clone",
        "--quiet",
        "--no-checkout",
        "--config",
        f"remote.origin.fetch={CLONE_REFSPEC}",
    ]
    run_git([*clone, "--", str(repo.path), str(dest)], cwd=dest.parent, env=ENV)
    run_git(["remote", "set-url", "origin", url], cwd=dest, env=ENV)
    head = run_git(["rev-parse", "refs/remotes/origin/main"], cwd=dest, env=ENV)
    sha = head.stdout.decode().strip()
    run_git(["checkout", "--quiet", "--no-track", "-B", "agent/issue-1", sha], cwd=dest, env=ENV)
    return time.perf_counter() - start


def main() -> None:
    """Print the figures; the last line is the JSON the bench reports."""
    root = Path(tempfile.mkdtemp(prefix="conveyor-bench-checkout-", dir=SCRATCH))
    try:
        made = time.perf_counter()
        bare = make_forge(root)
        url = bare.as_uri()
        cache = root / "cache.git"
        update_cache(cache, url, ENV)
        pack_mb = sum(p.stat().st_size for p in (bare / "objects" / "pack").glob("*.pack")) / 1e6
        print(f"repository: {FILES} files, {COMMITS} commits, {pack_mb:.1f} MB packed "
              f"(made in {time.perf_counter() - made:.1f} s)")  # fmt: skip
        fresh, job, old = [], [], []
        for n in range(RUNS):
            if time.perf_counter() - STARTED > TIME_LIMIT_S * 0.8 and n >= 2:
                break
            work = root / f"run{n}"
            work.mkdir()
            fresh.append(fresh_clone(url, work / "fresh"))
            job.append(job_checkout(cache, url, work / "repo"))
            old.append(old_checkout(cache, url, work / "old"))
            shutil.rmtree(work)
        figures = {
            "fresh_clone_s": round(statistics.median(fresh), 3),
            "job_checkout_s": round(statistics.median(job), 3),
            "checkout_before_issue_44_s": round(statistics.median(old), 3),
            "pack_mb": round(pack_mb, 1),
            "runs": len(job),
        }
        ratio = figures["job_checkout_s"] / figures["fresh_clone_s"]
        figures["job_over_fresh"] = round(ratio, 3)
        print(f"fresh clone {figures['fresh_clone_s']} s; job's checkout "
              f"{figures['job_checkout_s']} s ({ratio:.3f} of it); before issue 44 "
              f"{figures['checkout_before_issue_44_s']} s")  # fmt: skip
        goals = {"job_over_fresh_max": GOAL_RATIO}
        met = ratio <= GOAL_RATIO and time.perf_counter() - STARTED < TIME_LIMIT_S
        print(json.dumps({"bench": "checkout", "figures": figures, "goals": goals, "met": met}))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    sys.exit(0)


if __name__ == "__main__":
    main()
