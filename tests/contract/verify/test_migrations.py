"""The migration check (CHK-5) on a repository with SQLite migrations: up, down, up again."""

from __future__ import annotations

from pathlib import Path

import pytest

from conveyor.core.config import Commands, Paths
from conveyor.core.verify import Outcome, VerifyResult
from conveyor.ops.local.verify_op import failure_report
from conveyor.verify import verify
from tests.contract.verify.repo_kit import GitRepo
from tests.contract.verify.sqlite_project import (
    BAD_PRICE_DOWN,
    BASE_FILES,
    MIGRATE_DOWN,
    MIGRATE_UP,
    PRICE_DOWN,
    PRICE_IMPL,
    PRICE_TEST,
    PRICE_UP,
    PRICES,
    PYTEST,
    migrate,
)

pytestmark = pytest.mark.contract

COMMANDS = Commands(test=PYTEST, migrate_up=MIGRATE_UP, migrate_down=MIGRATE_DOWN)
# Where only the migration check matters, a test command that costs nothing.
QUICK = Commands(test="true", migrate_up=MIGRATE_UP, migrate_down=MIGRATE_DOWN)


@pytest.fixture
def shop(tmp_path: Path) -> GitRepo:
    """The shop project as a git repository (its first commit is the base)."""
    work = GitRepo.init(tmp_path / "shop")
    work.commit(BASE_FILES, "base")
    return work


def _price(shop: GitRepo, down: str, up: str = PRICE_UP) -> str:
    """Commit migration 002 (a price column) with `down` as its down migration."""
    return shop.commit(
        {
            "migrations/002_price.up.sql": up,
            "migrations/002_price.down.sql": down,
            PRICES: PRICE_IMPL,
            "tests/test_price.py": PRICE_TEST,
        }
    )


def _verify(shop: GitRepo, env: dict[str, str], tmp: Path, commands: Commands) -> VerifyResult:
    base = shop.git("rev-list", "--max-parents=0", "HEAD")
    head = shop.git("rev-parse", "HEAD")
    return verify(
        shop.path, commands, env, Paths(), base_sha=base, head_sha=head, logs_dir=tmp / "logs"
    )


def test_the_fixtures_runner_applies_and_reverts(shop: GitRepo, tmp_path: Path) -> None:
    """The fixture itself: up makes the table, down removes it."""
    db = tmp_path / "by-hand.sqlite3"
    assert migrate(shop.path, "up", db).stdout.split() == ["applied", "001"]
    assert migrate(shop.path, "down", db).stdout.split() == ["reverted", "001"]


def test_good_migrations_pass_up_down_up_on_a_scratch_database(
    shop: GitRepo, env: dict[str, str], tmp_path: Path
) -> None:
    """Three runs, all passed; nothing is left in the checkout or the work folder."""
    _price(shop, PRICE_DOWN)
    result = _verify(shop, env, tmp_path, QUICK)
    check = result.migrations
    assert check.outcome is Outcome.PASSED, check.reason
    assert check.paths == ("migrations/002_price.down.sql", "migrations/002_price.up.sql")
    assert [r.outcome for r in check.runs] == [Outcome.PASSED] * 3
    assert "reverted 002" in check.runs[1].tail
    assert "- migrations: passed" in result.summary()
    assert not list(shop.path.glob("*.sqlite3"))
    assert shop.git("status", "--porcelain") == ""


def test_a_broken_down_migration_fails_verify_with_the_databases_error(
    shop: GitRepo, env: dict[str, str], tmp_path: Path
) -> None:
    """The tests pass (they only go up), but down fails: a failure naming the SQLite error."""
    _price(shop, BAD_PRICE_DOWN)
    result = _verify(shop, env, tmp_path, COMMANDS)
    check = result.migrations
    assert [c.outcome for c in result.commands][:2] == [Outcome.SKIPPED, Outcome.PASSED]
    assert result.fails_before_fix.outcome is Outcome.PASSED
    assert check.outcome is Outcome.FAILED
    assert "migrate down" in check.reason
    assert [r.outcome for r in check.runs] == [Outcome.PASSED, Outcome.FAILED]
    assert not result.passed
    assert result.environment == ""
    (report,) = failure_report(result, ())
    assert report.startswith("migrations: failed")
    assert "no such table: item" in report


def test_a_down_that_breaks_the_next_up_fails_on_the_third_run(
    shop: GitRepo, env: dict[str, str], tmp_path: Path
) -> None:
    """Up, down and up again: a down that leaves a table behind fails when going up again."""
    history = "CREATE TABLE price_history (name TEXT, price INTEGER);\n"
    _price(shop, PRICE_DOWN, up=PRICE_UP + history)  # the down forgets price_history
    check = _verify(shop, env, tmp_path, QUICK).migrations
    assert check.outcome is Outcome.FAILED
    assert [r.outcome for r in check.runs] == [Outcome.PASSED] * 2 + [Outcome.FAILED]
    assert "table price_history already exists" in check.runs[2].tail


def test_no_changed_migration_or_no_command_skips_the_check(
    shop: GitRepo, env: dict[str, str], tmp_path: Path
) -> None:
    """A change outside migrations/ runs nothing; changed migrations without commands say so."""
    shop.commit({"README.md": "# shop\n"})
    assert _verify(shop, env, tmp_path, QUICK).migrations.reason == "no migration changed"
    _price(shop, PRICE_DOWN)
    check = _verify(shop, env, tmp_path, Commands(test="true")).migrations
    assert check.outcome is Outcome.SKIPPED
    assert "migrate_up" in check.reason


def test_a_migration_command_that_cannot_run_is_an_environment_error(
    shop: GitRepo, env: dict[str, str], tmp_path: Path
) -> None:
    """A missing program (exit 127) is the environment's fault, never the agent's."""
    _price(shop, PRICE_DOWN)
    missing = Commands(test="true", migrate_up="no-such-migrator up", migrate_down="true")
    result = _verify(shop, env, tmp_path, missing)
    assert result.migrations.outcome is Outcome.ENVIRONMENT
    assert "no-such-migrator" in result.environment
