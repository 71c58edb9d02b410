"""Administration of the emulator's data directory; works whether or not the server runs.

Each function opens the store directly (SQLite in WAL mode shares it safely with a
running server), or uses the `store` it is given (an in-process server's, which saves
opening and closing one per call). `repos.create_repo` (the git half) creates repositories.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from conveyor.emulator.model.records import (
    PERMISSIONS,
    ensure_user,
    new_token,
    repo_row,
    split_slug,
)
from conveyor.emulator.model.shapes import now_iso
from conveyor.emulator.model.store import Store


class AdminError(ValueError):
    """An administration request that cannot be done (unknown repository, bad name...)."""


@dataclass(frozen=True)
class AppCreated:
    """A new GitHub App: its id, its installation on the repository, its private key file."""

    app_id: int
    installation_id: int | None
    private_key_path: Path
    bot_login: str


@contextmanager
def store_for(data_dir: Path, shared: Store | None = None) -> Iterator[Store]:
    """`shared` when given (left open), else the store under `data_dir`, closed afterwards."""
    if shared is not None:
        yield shared
        return
    store = Store.open(data_dir)
    try:
        yield store
    finally:
        store.close()


def add_user(data_dir: Path, login: str, *, store: Store | None = None) -> str:
    """Create `login` when missing and return a fresh token for it."""
    _check_login(login)
    with store_for(data_dir, store) as opened, opened.tx() as conn:
        user_id = ensure_user(opened, conn, login)
        token = new_token()
        conn.execute("INSERT INTO tokens (token, user_id) VALUES (?, ?)", (token, user_id))
    return token


def add_collaborator(
    data_dir: Path, slug: str, login: str, permission: str = "write", *, store: Store | None = None
) -> None:
    """Make `login` (created when missing) a collaborator of OWNER/NAME with `permission`."""
    _check_login(login)
    if permission not in PERMISSIONS:
        msg = f"permission {permission!r} is not one of {', '.join(PERMISSIONS)}"
        raise AdminError(msg)
    with store_for(data_dir, store) as opened:
        repo = _repo(opened, slug)
        with opened.tx() as conn:
            user_id = ensure_user(opened, conn, login)
            conn.execute(
                "INSERT OR REPLACE INTO collaborators (repo_id, user_id, permission) "
                "VALUES (?, ?, ?)",
                (repo["id"], user_id, permission),
            )


def add_app(data_dir: Path, slug: str, install: str | None = None) -> AppCreated:
    """Create GitHub App `slug` with its bot `slug[bot]`, its RSA key, and maybe an installation."""
    _check_login(slug)
    store = Store.open(data_dir)
    try:
        repo = _repo(store, install) if install is not None else None
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        public_pem = key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
        with store.tx() as conn:
            if conn.execute("SELECT 1 FROM apps WHERE slug = ?", (slug,)).fetchone() is not None:
                msg = f"app {slug!r} already exists"
                raise AdminError(msg)
            app_id = store.next_id(conn)
            bot_id = ensure_user(store, conn, f"{slug}[bot]", kind="Bot")
            owner_id = repo["owner_id"] if repo is not None else bot_id
            key_path = data_dir / "apps" / f"{slug}.private-key.pem"
            conn.execute(
                "INSERT INTO apps (id, slug, owner_id, bot_user_id, public_key_pem, "
                "private_key_path, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (app_id, slug, owner_id, bot_id, public_pem.decode(), str(key_path), now_iso()),
            )
            installation_id = None
            if repo is not None:
                installation_id = store.next_id(conn)
                conn.execute(
                    "INSERT INTO installations (id, app_id, repo_id, created_at) "
                    "VALUES (?, ?, ?, ?)",
                    (installation_id, app_id, repo["id"], now_iso()),
                )
            key_path.parent.mkdir(parents=True, exist_ok=True)
            key_path.write_bytes(
                key.private_bytes(
                    serialization.Encoding.PEM,
                    serialization.PrivateFormat.TraditionalOpenSSL,
                    serialization.NoEncryption(),
                )
            )
            key_path.chmod(0o600)
        return AppCreated(app_id, installation_id, key_path, f"{slug}[bot]")
    finally:
        store.close()


def _repo(store: Store, slug: str) -> dict[str, int]:
    """The ids of repository OWNER/NAME; AdminError when it does not exist."""
    try:
        owner, name = split_slug(slug)
    except ValueError as exc:
        raise AdminError(str(exc)) from exc
    row = repo_row(store, owner, name)
    if row is None:
        msg = f"repository {slug!r} does not exist (create it with `conveyor forge create-repo`)"
        raise AdminError(msg)
    return {"id": int(row["id"]), "owner_id": int(row["owner_id"])}


def _check_login(login: str) -> None:
    """AdminError unless `login` is a plausible GitHub login."""
    if not login or len(login) > 39 or not all(c.isalnum() or c in "-_" for c in login):
        msg = f"login {login!r} must be 1-39 letters, digits, '-' or '_'"
        raise AdminError(msg)
