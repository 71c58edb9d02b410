"""Benchmark: the GitHub client against the embedded forge over loopback.

1. An idle poll of a repository with 200 open issues unchanged since the last
   poll: requests and rate-limit points, read from the forge's own counters, and its latency.
   Goal: 1 request, 0 points.
2. 1,000 mixed calls of the kinds a poll and a busy pipeline make (issue list,
   issue, comment list, comment create and edit, labels, PR read), one request
   each, timed through the client: p50 <= 5 ms; p99 printed.
3. What the client adds over a plain httpx GET of the same issue (p50), and the forge
   server's own CPU per such GET (its thread's, from /proc).
4. Squash merges, timed apart (each makes a real commit in the bare repository).

Run from the repository root: `.venv/bin/python bench/forge.py`. The last line
is the JSON object `{"bench": "forge", "figures": ..., "goals": ..., "met": ...}`.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import httpx

from conveyor.emulator.app.server import ForgeServer
from conveyor.emulator.graphql.endpoint import github_schema
from conveyor.forge.github import GitHubForge, token_forge
from conveyor.forge.types import LabelSpec

SLUG = "bench/sample"
OPEN_ISSUES = 200
MIXED_CALLS = 1_000
MERGES = 5
SERVER_GETS = 1_000
GOAL_POLL_REQUESTS = 1
GOAL_POLL_POINTS = 0
GOAL_P50_MS = 5.0
LABEL = LabelSpec("agent:working", "1d76db", "Conveyor is working on it")


def git(cwd: Path, *args: str) -> str:
    """Run git with a fixed identity and no user configuration; its stdout."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(cwd),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_AUTHOR_NAME": "Bench",
        "GIT_AUTHOR_EMAIL": "bench@example.invalid",
        "GIT_COMMITTER_NAME": "Bench",
        "GIT_COMMITTER_EMAIL": "bench@example.invalid",
    }
    done = subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def push_branches(clone_url: str, work: Path, count: int) -> dict[str, str]:
    """Push `count` branches, each adding its own file; branch -> head SHA."""
    clone = work / "clone"
    git(work, "clone", "--quiet", clone_url, clone.name)
    heads: dict[str, str] = {}
    for n in range(count):
        branch = f"conveyor/issue-{n}"
        git(clone, "checkout", "--quiet", "-B", branch, "origin/main")
        (clone / f"feature_{n}.py").write_text(f"VALUE = {n}\n")
        git(clone, "add", "-A")
        git(clone, "commit", "--quiet", "-m", f"Add feature {n}")
        git(clone, "push", "--quiet", "origin", f"HEAD:refs/heads/{branch}")
        heads[branch] = git(clone, "rev-parse", "HEAD")
    return heads


def seed_issues(url: str, token: str) -> list[int]:
    """Open the 200 issues with plain HTTP (seeding is not what is measured); their numbers."""
    headers = {"Authorization": f"token {token}"}
    with httpx.Client(base_url=f"{url}/repos/{SLUG}", headers=headers, timeout=30) as plain:
        return [
            plain.post("/issues", json={"title": f"Issue {n}", "body": "body"}).json()["number"]
            for n in range(OPEN_ISSUES)
        ]


def percentile(values: list[float], share: float) -> float:
    """The `share` percentile (0..1) of `values`, nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def full_list_ms(forge: GitHubForge) -> float:
    """Milliseconds to read all 200 open issues (two pages) when the list changed, p50 of 5."""
    times = []
    for _ in range(5):
        start = time.perf_counter()
        page = forge.list_open_issues()
        times.append((time.perf_counter() - start) * 1000)
    assert len(page.issues) == OPEN_ISSUES
    return statistics.median(times)


def idle_poll(server: ForgeServer, forge: GitHubForge) -> tuple[int, int, float]:
    """Requests and points one idle poll costs (the forge's counters), and its p50 of 50 in ms."""
    etag = forge.list_open_issues().etag
    before = server.stats()
    page = forge.list_open_issues(etag)
    after = server.stats()
    assert page.not_modified, "the second poll of an unchanged repository was not a 304"
    times = []
    for _ in range(50):
        start = time.perf_counter()
        forge.list_open_issues(etag)
        times.append((time.perf_counter() - start) * 1000)
    requests, points = after["requests"] - before["requests"], after["points"] - before["points"]
    return requests, points, statistics.median(times)


def mixed_calls(forge: GitHubForge, issues: list[int], pr: int) -> dict[str, list[float]]:
    """Time 1,000 calls of a poll's and a busy pipeline's kinds; milliseconds per kind."""
    rng = random.Random(7)
    etag = forge.list_open_issues().etag
    posted = {n: forge.create_comment(n, "<!-- conveyor:state v=1 --> seed") for n in issues[:20]}
    kinds: list[tuple[str, int, Callable[[int], object]]] = [
        ("issue list (conditional)", 100, lambda _n: forge.list_open_issues(etag)),
        ("issue", 200, forge.get_issue),
        ("comment list", 200, forge.list_comments),
        ("comment create", 100, lambda n: forge.create_comment(n, "progress")),
        ("comment edit", 150, lambda n: forge.edit_comment(posted[n].id, f"state {n}", n)),
        ("label add", 75, lambda n: forge.add_labels(n, [LABEL.name])),
        ("label remove", 75, lambda n: forge.remove_label(n, LABEL.name)),
        ("PR read", 100, lambda _n: forge.get_pr(pr)),
    ]
    plan = [(name, call) for name, count, call in kinds for _ in range(count)]
    assert len(plan) == MIXED_CALLS
    rng.shuffle(plan)
    times: dict[str, list[float]] = {name: [] for name, _, _ in kinds}
    for name, call in plan:
        number = rng.choice(list(posted))
        start = time.perf_counter()
        call(number)
        times[name].append((time.perf_counter() - start) * 1000)
    return times


def client_overhead(server: ForgeServer, forge: GitHubForge, token: str, number: int) -> float:
    """Milliseconds the client adds to one issue read (githubkit, parsing, our mapping), p50."""
    raw, ours = [], []
    path = f"/repos/{SLUG}/issues/{number}"
    with httpx.Client(base_url=server.url, headers={"Authorization": f"token {token}"}) as plain:
        for _ in range(100):
            start = time.perf_counter()
            plain.get(path).raise_for_status()
            raw.append((time.perf_counter() - start) * 1000)
            start = time.perf_counter()
            forge.get_issue(number)
            ours.append((time.perf_counter() - start) * 1000)
    return statistics.median(ours) - statistics.median(raw)


def server_cpu_ms_per_get(server: ForgeServer, token: str, number: int) -> float:
    """The forge server thread's CPU per plain GET of one issue, in ms (from its /proc stat)."""
    thread = next(t for t in threading.enumerate() if t.name == "forge-server")
    stat = Path(f"/proc/self/task/{thread.native_id}/stat")
    ticks = os.sysconf("SC_CLK_TCK")

    def cpu_s() -> float:
        fields = stat.read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / ticks

    path = f"/repos/{SLUG}/issues/{number}"
    with httpx.Client(base_url=server.url, headers={"Authorization": f"token {token}"}) as plain:
        plain.get(path).raise_for_status()
        before = cpu_s()
        for _ in range(SERVER_GETS):
            plain.get(path).raise_for_status()
        spent = cpu_s() - before
    return spent * 1000 / SERVER_GETS


def timed_merges(forge: GitHubForge, heads: dict[str, str]) -> list[float]:
    """Milliseconds per squash merge of ready PRs with their expected head."""
    pulls = []
    for branch, sha in heads.items():
        pr = forge.create_draft_pr(branch, "main", f"Add {branch}", "")
        forge.mark_pr_ready(pr.number)
        pulls.append((pr.number, sha))
    times = []
    for number, sha in pulls:
        start = time.perf_counter()
        forge.merge_pr(number, sha, f"Merge #{number}", "")
        times.append((time.perf_counter() - start) * 1000)
    return times


TICK_SLUG = "bench/tick"
TICK_ISSUES = 20


def idle_tick(server: ForgeServer, root: Path) -> tuple[int, int]:
    """Requests and points of a second `conveyor tick` on a repository where nothing can start.

    Its open issues are by a person the config does not trust, so no job starts.
    """
    from conveyor.job.entry import conveyor_argv
    from conveyor.testing.world import config_toml

    source = root / "tick-src"
    source.mkdir()
    (source / "README.md").write_text("# Tick\n")
    server.create_repo(TICK_SLUG, source)
    server.add_collaborator(TICK_SLUG, "conveyor-bot", "write")
    server.add_collaborator(TICK_SLUG, "tick-owner", "write")
    server.add_user("tick-owner")
    stranger = server.add_user("tick-stranger")
    headers = {"Authorization": f"token {stranger}"}
    with httpx.Client(base_url=f"{server.url}/repos/{TICK_SLUG}", headers=headers) as plain:
        for n in range(TICK_ISSUES):
            plain.post("/issues", json={"title": f"Tick {n}", "body": "body"})
    config = root / "tick.toml"
    config.write_text(config_toml({
        "repo": TICK_SLUG, "home": str(root / "tick-home"), "allowed_users": ["tick-owner"],
        "forge": {"kind": "local", "api_url": server.url},
        "account": {"login": "conveyor-bot", "token_env": "BENCH_TICK_TOKEN"},
        "commands": {"test": "true"},
    }))  # fmt: skip
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(root)}
    env["BENCH_TICK_TOKEN"] = server.add_user("conveyor-bot")
    argv = [*conveyor_argv(), "tick", "--config", str(config)]
    # Timestamps have whole seconds: a tick re-asks (conditionally) the issues changed within
    # a second of its last read. The idle tick measured is one with nothing that recent.
    time.sleep(2.1)
    subprocess.run(argv, env=env, capture_output=True, check=True)
    before = server.stats()
    subprocess.run(argv, env=env, capture_output=True, check=True)
    after = server.stats()
    return after["requests"] - before["requests"], after["points"] - before["points"]


def main() -> None:
    """Start a forge, seed it, run the three measurements, print the figures and the JSON."""
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="conveyor-bench-forge-") as tmp:
        root = Path(tmp)
        source = root / "src"
        source.mkdir()
        (source / "README.md").write_text("# Bench\n")
        with ForgeServer(root / "forge") as server:
            created = server.create_repo(SLUG, source)
            server.add_collaborator(SLUG, "conveyor-bot", "write")
            token = server.add_user("conveyor-bot")
            forge = token_forge(SLUG, token, base_url=server.url)
            with forge:
                forge.ensure_labels([LABEL])
                issues = seed_issues(server.url, token)
                github_schema()  # wait for its background build: it would share the timings
                requests, points, idle_ms = idle_poll(server, forge)
                full = full_list_ms(forge)
                heads = push_branches(created.clone_url, root, MERGES + 1)
                first = next(iter(heads))
                pr = forge.create_draft_pr(first, "main", "Read me", "").number
                del heads[first]
                cpu_start = time.process_time()
                times = mixed_calls(forge, issues, pr)
                cpu_per_call = (time.process_time() - cpu_start) * 1000 / MIXED_CALLS
                overhead = client_overhead(server, forge, token, issues[0])
                server_cpu = server_cpu_ms_per_get(server, token, issues[0])
                merges = timed_merges(forge, heads)
            tick_requests, tick_points = idle_tick(server, root)
    every = [t for kind in times.values() for t in kind]
    for name, kind in times.items():
        p50, p99 = statistics.median(kind), percentile(kind, 0.99)
        print(f"{name:>26}: p50 {p50:6.2f} ms  p99 {p99:6.2f} ms")
    figures = {
        "idle_poll_requests": requests,
        "idle_poll_points": points,
        "idle_poll_p50_ms": round(idle_ms, 3),
        "full_list_200_ms": round(full, 1),
        "mixed_calls": len(every),
        "mixed_p50_ms": round(statistics.median(every), 3),
        "mixed_p99_ms": round(percentile(every, 0.99), 3),
        # CPU of client and server (one process) per mixed call: steadier than latency under load.
        "mixed_cpu_ms_per_call": round(cpu_per_call, 3),
        "client_overhead_p50_ms": round(overhead, 3),
        # The forge's own CPU per request (uvicorn on httptools, starlette, the emulator).
        "server_cpu_ms_per_get": round(server_cpu, 3),
        "merge_p50_ms": round(statistics.median(merges), 1),
        "merge_max_ms": round(max(merges), 1),
        "idle_tick_requests": tick_requests,  # goal 1 request, 0 points (`conveyor tick`)
        "idle_tick_points": tick_points,
        "wall_s": round(time.perf_counter() - started, 1),
        # Client and server share this process and the machine: latencies grow with load.
        "load_1m": round(os.getloadavg()[0], 2),
    }
    print(f"idle poll of {OPEN_ISSUES} unchanged open issues: {requests} request(s), {points} pt")
    print(
        f"{len(every)} mixed calls: p50 {figures['mixed_p50_ms']} ms, p99 {figures['mixed_p99_ms']}"
    )
    print(
        f"{len(merges)} merges: p50 {figures['merge_p50_ms']} ms, max {figures['merge_max_ms']} ms"
    )
    goals = {
        "idle_poll_requests": GOAL_POLL_REQUESTS,
        "idle_poll_points": GOAL_POLL_POINTS,
        "mixed_p50_ms": GOAL_P50_MS,
        "idle_tick_requests": GOAL_POLL_REQUESTS,
        "idle_tick_points": GOAL_POLL_POINTS,
    }
    met = (
        requests <= GOAL_POLL_REQUESTS
        and points <= GOAL_POLL_POINTS
        and figures["mixed_p50_ms"] <= GOAL_P50_MS
        and tick_requests <= GOAL_POLL_REQUESTS
        and tick_points <= GOAL_POLL_POINTS
    )
    print(json.dumps({"bench": "forge", "figures": figures, "goals": goals, "met": met}))


if __name__ == "__main__":
    main()
