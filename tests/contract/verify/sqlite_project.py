"""A fixture repository with SQLite migrations: numbered up/down SQL files and a tiny runner.

`shop` keeps items in SQLite. `migrate.py up DB` applies the pending migrations in
order and `migrate.py down DB` reverts every applied one, newest first; without DB
they use `$CONVEYOR_SCRATCH_DB`, the scratch database verify's migration check gives
them. Migration 002 (a price column) is the change the tests make, with a good or a
broken down migration.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

PY = shlex.quote(sys.executable)
MIGRATE_UP = f"{PY} migrate.py up"
MIGRATE_DOWN = f"{PY} migrate.py down"
PYTEST = f"{PY} -m pytest -q -p no:cacheprovider"

RUNNER = '''\
"""Apply (up) or revert (down) the SQL migrations in migrations/ on a SQLite database."""

import os
import sqlite3
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent / "migrations"


def script(version, direction):
    (path,) = HERE.glob(f"{version}_*.{direction}.sql")
    return path.read_text()


def main(direction, db):
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE IF NOT EXISTS schema_migrations (version TEXT PRIMARY KEY)")
    applied = {row[0] for row in con.execute("SELECT version FROM schema_migrations")}
    versions = sorted({p.name.split("_", 1)[0] for p in HERE.glob("*.up.sql")})
    if direction == "up":
        for version in [v for v in versions if v not in applied]:
            con.executescript(script(version, "up"))
            con.execute("INSERT INTO schema_migrations VALUES (?)", (version,))
            con.commit()
            print("applied", version)
    else:
        for version in sorted(applied, reverse=True):
            con.executescript(script(version, "down"))
            con.execute("DELETE FROM schema_migrations WHERE version = ?", (version,))
            con.commit()
            print("reverted", version)


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3) or sys.argv[1] not in ("up", "down"):
        sys.exit("usage: migrate.py up|down [DB]")
    main(sys.argv[1], sys.argv[2] if len(sys.argv) == 3 else os.environ["CONVEYOR_SCRATCH_DB"])
'''

SHOP = '''\
"""A shop's stock, kept in SQLite."""

import sqlite3


def quantity_of(db, name):
    """How many of `name` are in stock."""
    with sqlite3.connect(db) as con:
        return con.execute("SELECT quantity FROM items WHERE name = ?", (name,)).fetchone()[0]
'''

MIGRATE_TEST = """\
import sqlite3
import subprocess
import sys
from pathlib import Path

from shop import quantity_of

RUNNER = str(Path(__file__).resolve().parents[1] / "migrate.py")


def test_migrations_make_the_items_table(tmp_path):
    db = tmp_path / "shop.sqlite3"
    subprocess.run([sys.executable, RUNNER, "up", str(db)], check=True)
    with sqlite3.connect(db) as con:
        con.execute("INSERT INTO items (name, quantity) VALUES ('bolt', 2)")
    assert quantity_of(db, "bolt") == 2
"""

BASE_FILES = {
    "pytest.ini": "[pytest]\npythonpath = .\ntestpaths = tests\n",
    "migrate.py": RUNNER,
    "migrations/001_items.up.sql": (
        "CREATE TABLE items (name TEXT PRIMARY KEY, quantity INTEGER NOT NULL);\n"
    ),
    "migrations/001_items.down.sql": "DROP TABLE items;\n",
    "shop/__init__.py": SHOP,
    "tests/test_migrate.py": MIGRATE_TEST,
    ".gitignore": "__pycache__/\n*.sqlite3\n",
}

PRICE_UP = "ALTER TABLE items ADD COLUMN price INTEGER NOT NULL DEFAULT 0;\n"
PRICE_DOWN = "ALTER TABLE items DROP COLUMN price;\n"
# The broken down migration: a typo in the table's name.
BAD_PRICE_DOWN = "ALTER TABLE item DROP COLUMN price;\n"

PRICE_TEST = """\
import sqlite3
import subprocess
import sys
from pathlib import Path

from shop.prices import price_of

RUNNER = str(Path(__file__).resolve().parents[1] / "migrate.py")


def test_an_items_price_is_read(tmp_path):
    db = tmp_path / "shop.sqlite3"
    subprocess.run([sys.executable, RUNNER, "up", str(db)], check=True)
    with sqlite3.connect(db) as con:
        con.execute("INSERT INTO items (name, quantity, price) VALUES ('bolt', 2, 30)")
    assert price_of(db, "bolt") == 30
"""
PRICES = "shop/prices.py"
PRICE_STUB = '''\
"""What items cost."""

import sqlite3


def price_of(db, name):
    """The price of one `name`."""
    raise NotImplementedError
'''
PRICE_IMPL = PRICE_STUB.replace(
    "    raise NotImplementedError\n",
    "    with sqlite3.connect(db) as con:\n"
    '        return con.execute("SELECT price FROM items WHERE name = ?", (name,)).fetchone()[0]\n',
)


def write_project(root: Path) -> Path:
    """The shop project's files under `root`, as a plain folder."""
    for path, text in BASE_FILES.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    return root


def migrate(root: Path, direction: str, db: Path) -> subprocess.CompletedProcess[str]:
    """Run the project's runner by hand (the fixture's own check)."""
    argv = [sys.executable, str(root / "migrate.py"), direction, str(db)]
    return subprocess.run(argv, capture_output=True, text=True, check=False)
