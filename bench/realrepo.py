"""Benchmark: the verify path on a real-sized project, against a person's bare replay of it.

The bench writes a project of a real size: a package of 20 modules and 300 tests, a
dependency shipped as a local wheel, and a setup command that makes a virtual
environment and installs the wheel into it (no network, several seconds, like a real
`pip install`). Its history: the base, the spec writer's commit (a failing test) and
the fix.

The bare replay is what a person does by hand: one setup in one clone, then the tests
at the base, at the spec commit (the new test fails) and at the fix (all pass).
The pipeline's verify path is what Conveyor runs for the same issue, each part in its
own fresh clone as its jobs do: the spec writer's commit check (the new tests fail;
the spec changed a test file only, so the tree with it put back is the base's and is not
run) and verify at the fix (setup, tests; fails-before-fix stands on the spec check's
proof, issue 32), with the shared set-up environment and base failures under a
CONVEYOR_HOME of its own. Goal: pipeline ÷ bare ≤ 1.5. Before issue 13, setup ran before
every one of the pipeline's test runs; before issue 32, the tests ran four times.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

STARTED = time.perf_counter()  # before Conveyor's imports: the 40 s limit counts them too

from conveyor.core.config import Commands, Paths  # noqa: E402
from conveyor.core.replies import Interface  # noqa: E402
from conveyor.ops.local.spec_check import check_spec_commits  # noqa: E402
from conveyor.verify import verify  # noqa: E402
from conveyor.verify.context import Context  # noqa: E402
from conveyor.verify.run import SharedDirs  # noqa: E402

GOALS = {"ratio": 1.5, "bench_total_s": 40.0}
PY = sys.executable
MODULES, TESTS_PER_MODULE = 20, 15
GIT = ["git", "-c", "user.name=b", "-c", "user.email=b@b", "-c", "core.hooksPath=/dev/null"]
SETUP = (
    f"{PY} -m venv .venv && .venv/bin/python -m pip install -q --no-index "
    "--disable-pip-version-check --find-links wheels ledgerdep"
)
TEST = f"{PY} -m pytest -q -p no:cacheprovider"
CONFTEST = (
    "import pathlib\nimport sys\n\n"
    "_LIB = pathlib.Path(__file__).parent / '.venv' / 'lib'\n"
    "_SITE = sorted(_LIB.glob('python*/site-packages'))\n"
    "if not _SITE:\n    raise RuntimeError('run the setup command first: .venv is missing')\n"
    "sys.path.insert(0, str(_SITE[0]))\n"
)
BUGGY = "def scale(x, k):\n    return x + k\n"
FIXED = "def scale(x, k):\n    return x * k\n"
NEW_TEST = (
    "from ledger.m0 import scale\n\n\ndef test_scale_multiplies():\n    assert scale(3, 4) == 12\n"
)


def _wheel(folder: Path) -> None:
    """A pure-Python wheel of the `ledgerdep` dependency, written by hand."""
    files = {
        "ledgerdep/__init__.py": "def base(n):\n    return n * 2\n",
        "ledgerdep-1.0.dist-info/METADATA": (
            "Metadata-Version: 2.1\nName: ledgerdep\nVersion: 1.0\n"
        ),
        "ledgerdep-1.0.dist-info/WHEEL": (
            "Wheel-Version: 1.0\nGenerator: bench\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        ),
    }
    record = []
    for name, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=")
        record.append(f"{name},sha256={digest.decode()},{len(text.encode())}")
    record.append("ledgerdep-1.0.dist-info/RECORD,,")
    folder.mkdir(parents=True)
    with zipfile.ZipFile(folder / "ledgerdep-1.0-py3-none-any.whl", "w") as wheel:
        for name, text in files.items():
            wheel.writestr(name, text)
        wheel.writestr("ledgerdep-1.0.dist-info/RECORD", "\n".join(record) + "\n")


def _write(root: Path, path: str, text: str) -> None:
    target = root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)


def _git(cwd: Path, *args: str) -> str:
    done = subprocess.run([*GIT, *args], cwd=cwd, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def make_project(root: Path) -> tuple[str, str, str]:
    """The project's repository at `root`; (base, spec commit, fix commit)."""
    _wheel(root / "wheels")
    _write(root, "conftest.py", CONFTEST)
    _write(root, ".gitignore", ".venv/\n__pycache__/\n")
    _write(root, "ledger/__init__.py", "")
    for m in range(MODULES):
        body = BUGGY if m == 0 else ""
        body += "".join(f"\n\ndef f{i}(n):\n    return n + {i}\n" for i in range(TESTS_PER_MODULE))
        _write(root, f"ledger/m{m}.py", body)
        tests = "".join(
            f"\n\ndef test_f{i}():\n    assert m.f{i}(base(1)) == 2 + {i}\n"
            for i in range(TESTS_PER_MODULE)
        )
        _write(
            root,
            f"tests/test_m{m}.py",
            f"from ledgerdep import base\nfrom ledger import m{m} as m\n{tests}",
        )
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "The ledger project")
    base = _git(root, "rev-parse", "HEAD")
    _write(root, "tests/test_scale.py", NEW_TEST)
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "A failing test: scale multiplies")
    spec = _git(root, "rev-parse", "HEAD")
    (root / "ledger" / "m0.py").write_text(
        (root / "ledger" / "m0.py").read_text().replace(BUGGY, FIXED)
    )
    _git(root, "commit", "-q", "-am", "scale multiplies")
    return base, spec, _git(root, "rev-parse", "HEAD")


def _env(home: Path) -> dict[str, str]:
    home.mkdir(parents=True, exist_ok=True)
    return {"PATH": os.environ["PATH"], "HOME": str(home), "PYTHONDONTWRITEBYTECODE": "1"}


def _run(command: str, cwd: Path, env: dict[str, str]) -> int:
    done = subprocess.run(
        ["/bin/sh", "-c", command], cwd=cwd, env=env, capture_output=True, check=False
    )
    return done.returncode


def bare_replay(root: Path, origin: Path, shas: tuple[str, str, str]) -> float:
    """One clone, one setup, the tests at the base, the spec commit and the fix; seconds."""
    start = time.perf_counter()
    tree, env = root / "bare", _env(root / "bare-home")
    _git(root, "clone", "-q", str(origin), str(tree))
    if _run(SETUP, tree, env) != 0:
        raise RuntimeError("the bare setup failed")
    codes = []
    for sha in shas:
        _git(tree, "checkout", "-q", sha)
        codes.append(_run(TEST, tree, env))
    if codes[0] != 0 or codes[1] == 0 or codes[2] != 0:
        raise RuntimeError(f"unexpected bare test results {codes}")
    return time.perf_counter() - start


def _clone(root: Path, origin: Path, name: str, sha: str) -> Path:
    tree = root / name
    _git(root, "clone", "-q", str(origin), str(tree))
    _git(tree, "checkout", "-q", sha)
    return tree


def pipeline(root: Path, origin: Path, shas: tuple[str, str, str]) -> tuple[float, int]:
    """The spec check and verify, each in a fresh clone, sharing setup; (seconds, setups run)."""
    base, spec, fix = shas
    start = time.perf_counter()
    commands = Commands(setup=SETUP, test=TEST, timeout_seconds=300)
    shared = SharedDirs(
        envs_dir=root / "home" / "envs",
        baselines_dir=root / "home" / "baselines",
        test_globs=Paths().tests,
    )
    env = _env(root / "job-home")
    checkout = _clone(root, origin, "spec-job", spec)
    ctx = Context(checkout, commands, env, root / "logs" / "spec", root / "spec-job-work", **shared)
    (root / "spec-job-work").mkdir()
    interface = Interface(
        name="scale", kind="function", where="ledger/m0.py", status="changed",
        signature="def scale(x, k)", behaviours=["scale multiplies"],
    )  # fmt: skip
    verdict = check_spec_commits(
        ctx, Paths(), start=base, interfaces=[interface], no_tests_reason=None
    )
    if not verdict.ok:
        raise RuntimeError(f"the spec check refused: {verdict.findings} {verdict.environment}")
    checkout = _clone(root, origin, "checks-job", fix)
    (root / "checks-job-work").mkdir()
    result = verify(
        checkout, commands, env, Paths(), base_sha=base, head_sha=fix,
        logs_dir=root / "logs" / "checks", work_dir=root / "checks-job-work", shared=shared,
    )  # fmt: skip
    if not result.passed:
        raise RuntimeError(f"verify failed: {result.failures()}")
    setups = sum(1 for _ in (root / "home" / "envs").glob("*/ready.json"))
    return time.perf_counter() - start, setups


def main() -> None:
    """Measure the bare replay and the pipeline's verify path; print the JSON line last."""
    root = Path(tempfile.mkdtemp(prefix="conveyor-bench-realrepo-"))
    figures: dict[str, object] = {}
    met = False
    try:
        origin = root / "origin"
        shas = make_project(origin)
        bare = bare_replay(root, origin, shas)
        piped, setups = pipeline(root, origin, shas)
        ratio = piped / bare
        figures = {
            "tests": MODULES * TESTS_PER_MODULE + 1,
            "bare_replay_s": round(bare, 2),
            "pipeline_verify_s": round(piped, 2),
            "ratio": round(ratio, 2),
            "setups_in_pipeline": setups,
        }
        print(f"bare replay {bare:.2f} s; pipeline verify path {piped:.2f} s ({setups} setup)")
        met = ratio <= GOALS["ratio"]
    except (RuntimeError, subprocess.SubprocessError, OSError) as exc:
        print(f"the realrepo bench failed: {exc}", file=sys.stderr)
        figures = {"error": str(exc).splitlines()[0] if str(exc) else type(exc).__name__}
    finally:
        shutil.rmtree(root, ignore_errors=True)
    total = time.perf_counter() - STARTED
    figures["bench_total_s"] = round(total, 2)
    met = met and total < GOALS["bench_total_s"]
    print(json.dumps({"bench": "realrepo", "figures": figures, "goals": GOALS, "met": met}))


if __name__ == "__main__":
    main()
