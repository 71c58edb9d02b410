"""The network a repository's CI command gets: none, its tools' registries, or named hosts.

GitHub's runners have the network; the embedded forge's CI runs boxed with none by
default (the demo's CI needs none). `forge serve --ci-network` sets the server's
default and `forge create-repo --ci-network` a repository's own: `none`,
`registries` (what the CI command's own tools would reach, found as for a job's setup:
`hooks/ci_box.py::ci_hosts`) or host names (`pypi.org,files.pythonhosted.org`,
`127.0.0.1:3141`). Its connections go through Conveyor's allowlisting proxy, as a
setup's do; each refused one is named at the end of the run's log.
"""

from __future__ import annotations

import sqlite3

from conveyor.core.config_sandbox import HOST
from conveyor.emulator.model.store import Store, register_schema

NONE = "none"
REGISTRIES = "registries"
DDL = """
CREATE TABLE IF NOT EXISTS ci_networks (
    repo_id INTEGER PRIMARY KEY, network TEXT NOT NULL);
"""
register_schema(DDL)


def parse_ci_network(text: str | None) -> str:
    """`none`, `registries`, or comma-separated host names; a clear error for anything else."""
    value = (text or NONE).strip()
    if value in (NONE, REGISTRIES):
        return value
    hosts = [h.strip() for h in value.split(",") if h.strip()]
    bad = [h for h in hosts if not HOST.match(h)]
    if not hosts or bad:
        msg = (
            "the CI's network is `none`, `registries` or host names like "
            f"'pypi.org,files.pythonhosted.org', got {text!r}"
        )
        raise ValueError(msg)
    return ",".join(hosts)


def save_ci_network(conn: sqlite3.Connection, repo_id: int, network: str) -> None:
    """Give repository `repo_id` its own CI network."""
    conn.execute(
        "INSERT OR REPLACE INTO ci_networks (repo_id, network) VALUES (?, ?)", (repo_id, network)
    )


def repo_ci_network(store: Store, repo_id: int, default: str) -> str:
    """Repository `repo_id`'s CI network, else the server's `default`."""
    row = store.one("SELECT network FROM ci_networks WHERE repo_id = ?", (repo_id,))
    return str(row["network"]) if row is not None else default
