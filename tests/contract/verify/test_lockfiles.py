"""The lockfile check against a real repository and a real regeneration command."""

from __future__ import annotations

from pathlib import Path

import pytest

from conveyor.core.config import Commands, Paths
from conveyor.core.verify import Outcome
from conveyor.verify import verify
from tests.contract.verify.repo_kit import PY, GitRepo

pytestmark = pytest.mark.contract

# "Regenerates" requirements.lock: the sorted, lower-cased lines of requirements.in.
LOCK = (
    f"{PY} -c \"import pathlib; p = pathlib.Path('requirements.in'); "
    "lines = sorted(l.lower() for l in p.read_text().split()); "
    "pathlib.Path('requirements.lock').write_text(chr(10).join(lines) + chr(10))\""
)
PATHS = Paths(lockfiles=("requirements.lock",), non_code=("requirements.*", "**/*.md"))
COMMANDS = Commands(test=f'{PY} -c "pass"', lockfile=LOCK)


def test_a_lockfile_that_differs_from_its_regeneration_is_named(
    repo: GitRepo, env: dict[str, str], tmp_path: Path
) -> None:
    """A hand-edited lockfile fails the check, which names it; the checkout is left as it was."""
    base = repo.git("rev-parse", "HEAD")
    stale = "httpx\n"
    head = repo.commit({"requirements.in": "Rich\nhttpx\n", "requirements.lock": stale})
    result = verify(
        repo.path, COMMANDS, env, PATHS, base_sha=base, head_sha=head, logs_dir=tmp_path / "l"
    )
    assert result.lockfiles.outcome is Outcome.FAILED
    assert result.lockfiles.paths == ("requirements.lock",)
    assert "requirements.lock" in result.lockfiles.reason
    assert not result.passed
    assert (repo.path / "requirements.lock").read_text() == stale
    assert repo.git("status", "--porcelain", "--untracked-files=no") == ""


def test_a_lockfile_that_matches_its_regeneration_passes(
    repo: GitRepo, env: dict[str, str], tmp_path: Path
) -> None:
    """A lockfile committed as the command makes it passes, with its regeneration logged."""
    base = repo.git("rev-parse", "HEAD")
    head = repo.commit({"requirements.in": "Rich\nhttpx\n", "requirements.lock": "httpx\nrich\n"})
    result = verify(
        repo.path, COMMANDS, env, PATHS, base_sha=base, head_sha=head, logs_dir=tmp_path / "l"
    )
    assert result.lockfiles.outcome is Outcome.PASSED
    assert result.lockfiles.paths == ("requirements.lock",)
    run = result.lockfiles.runs[0]
    assert run.log_path is not None
    assert Path(run.log_path).is_file()
    assert result.passed, result.failures()


def test_an_untouched_lockfile_is_not_regenerated(
    repo: GitRepo, env: dict[str, str], tmp_path: Path
) -> None:
    """When the change touches no lockfile, the check is skipped with that reason."""
    base = repo.git("rev-parse", "HEAD")
    head = repo.commit({"README.md": "# calc, again\n"})
    result = verify(
        repo.path, COMMANDS, env, PATHS, base_sha=base, head_sha=head, logs_dir=tmp_path / "l"
    )
    assert result.lockfiles.outcome is Outcome.SKIPPED
    assert "no lockfile changed" in result.lockfiles.reason
