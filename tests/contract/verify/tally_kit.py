"""A `tally`-like project for the judges' tests: pytest, ruff and `mypy --strict` configured in
`pyproject.toml`, the spec writer's failing test of `count_unique`, and implementations."""

from __future__ import annotations

from pathlib import Path

from conveyor.core.config import Commands, Paths
from conveyor.core.spec_tests import SpecTests
from conveyor.core.verify import CheckResult, VerifyResult
from conveyor.verify import verify
from conveyor.verify.judges import Judging
from tests.contract.verify.repo_kit import PY, GitRepo

PYPROJECT = """[project]
name = "tally"
version = "0.1"

[tool.pytest.ini_options]
pythonpath = ["src"]
testpaths = ["tests"]

[tool.ruff]
line-length = 100

[tool.ruff.lint]
select = ["E", "F", "B"]

[tool.mypy]
strict = true
files = ["src"]
"""
COUNT = (
    '"""Counting words."""\n\n\ndef count(words: list[str]) -> int:\n'
    '    """How many words."""\n    return len(words)\n'
)
BASE = {
    "pyproject.toml": PYPROJECT,
    "src/tally/__init__.py": COUNT,
    "tests/test_count.py": (
        "from tally import count\n\n\n"
        "def test_count() -> None:\n    assert count(['a', 'b']) == 2\n"
    ),
    ".gitignore": ".mypy_cache/\n.ruff_cache/\n",
}
STUB = (
    '"""Distinct words."""\n\n\ndef count_unique(words: list[str]) -> int:\n'
    '    """How many distinct words."""\n    raise NotImplementedError\n'
)
SPEC_TEST = (
    "from tally.unique import count_unique\n\n\n"
    "def test_count_unique() -> None:\n    assert count_unique(['a', 'b', 'a']) == 2\n"
)
UNIQUE = "src/tally/unique.py"
HONEST = STUB.replace("raise NotImplementedError", "return len(set(words))")
# Right, but ruff fails it (F401, an unused import) and mypy --strict fails it (no annotations).
LINT_FAILS = HONEST.replace('"""Distinct words."""\n', '"""Distinct words."""\n\nimport os\n')
TYPES_FAIL = HONEST.replace(
    "def count_unique(words: list[str]) -> int:", "def count_unique(words):"
)
SPEC = SpecTests(
    files=("tests/test_unique.py",), ids=("tests/test_unique.py::test_count_unique",), read=True
)
COMMANDS = Commands(
    test=f"{PY} -m pytest -q -p no:cacheprovider",
    lint=f"{PY} -m ruff check --no-cache .",
    typecheck=f"{PY} -m mypy --cache-dir=.mypy_cache",
)


def tally_repo(root: Path) -> tuple[GitRepo, str, str]:
    """The project at its base, then the spec's commit: (repo, base, spec head)."""
    repo = GitRepo.init(root)
    base = repo.commit(BASE, "tally")
    spec = repo.commit({UNIQUE: STUB, "tests/test_unique.py": SPEC_TEST}, "spec: count_unique")
    return repo, base, spec


def verify_head(
    repo: GitRepo, base: str, env: dict[str, str], logs: Path, judging: Judging | None = None
) -> VerifyResult:
    """verify the repository's HEAD against `base`, the spec's tests kept by name."""
    head = repo.git("rev-parse", "HEAD")
    return verify(
        repo.path,
        COMMANDS,
        env,
        Paths(),
        base_sha=base,
        head_sha=head,
        logs_dir=logs,
        judging=judging or Judging(spec=SPEC),
    )


def verify_cheat(
    tmp_path: Path, env: dict[str, str], way: str, files: dict[str, str]
) -> VerifyResult:
    """verify a change that commits `files` over the spec's commit (a cheat called `way`):
    the head's own judges pass, yet it does not pass and is held for a person."""
    repo, base, _ = tally_repo(tmp_path / "tally")
    repo.commit(files, f"cheat: {way}")
    result = verify_head(repo, base, env, tmp_path / "logs")
    assert all(c.ok for c in result.commands), result.summary()  # the head's own judges pass
    assert not result.passed, result.summary()
    assert result.held, "a person may accept it"
    return result


def check(result: VerifyResult, name: str) -> CheckResult:
    """The check called `name` of the result."""
    return next(c for c in result.checks if c.name == name)
