"""GitHub App auth end to end: a signed JWT mints an installation token acting as SLUG[bot]."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import jwt
from cryptography.hazmat.primitives.asymmetric import rsa

from conveyor.testing import http
from tests.contract.emulator.conftest import World
from tests.contract.emulator.openapi_check import check_error_shape, check_response


def _jwt(app_id: int, key: object, *, exp_in: int = 540) -> str:
    """An app JWT as GitHub's docs describe it (RS256, iss = app id)."""
    now = int(time.time())
    payload = {"iat": now - 60, "exp": now + exp_in, "iss": str(app_id)}
    return jwt.encode(payload, key, algorithm="RS256")  # type: ignore[arg-type]


def _client(world: World, bearer: str) -> httpx.Client:
    """A client sending `Authorization: Bearer ...`."""
    return http.client(
        base_url=world.server.url,
        headers={"Authorization": f"Bearer {bearer}"},
        event_hooks={"response": [check_response]},
    )


def test_a_signed_jwt_mints_a_token_that_acts_as_the_bot(world: World, tmp_path: Path) -> None:
    """The minted token comments as `SLUG[bot]` (type Bot); `/user` refuses it with 403."""
    slug = f"conveyor-{world.name}"
    created = world.server.add_app(slug, world.slug)
    key = created.private_key_path.read_bytes()
    with _client(world, _jwt(created.app_id, key)) as app:
        installation = app.get(f"{world.repo_path}/installation").json()
        assert (installation["id"], installation["app_slug"]) == (created.installation_id, slug)
        minted = app.post(f"/app/installations/{created.installation_id}/access_tokens")
    assert minted.status_code == 201
    token = minted.json()["token"]
    with world.client(token) as bot:
        number = bot.post(f"{world.repo_path}/issues", json={"title": "by bot"}).json()["number"]
        comment = bot.post(f"{world.repo_path}/issues/{number}/comments", json={"body": "hi"})
        assert comment.json()["user"]["login"] == f"{slug}[bot]"
        assert comment.json()["user"]["type"] == "Bot"
        bot.post(f"{world.repo_path}/issues/{number}/labels", json={"labels": ["agent:working"]})
        check_error_shape(bot.get("/user"), 403)
        assert bot.get(f"{world.repo_path}/installation").json()["id"] == created.installation_id


def test_bad_jwts_are_refused_with_401(world: World) -> None:
    """A JWT signed by another key, an expired one or garbage: 401; no token at all: 401."""
    created = world.server.add_app(f"other-{world.name}", world.slug)
    stranger = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    url = f"/app/installations/{created.installation_id}/access_tokens"
    key = created.private_key_path.read_bytes()
    for bearer in (
        _jwt(created.app_id, stranger),
        _jwt(created.app_id, key, exp_in=-120),
        "not.a.jwt",
    ):
        with _client(world, bearer) as app:
            check_error_shape(app.post(url), 401)
    with world.client() as anonymous:
        check_error_shape(anonymous.post(url), 401)


def test_an_app_cannot_mint_for_another_apps_installation(world: World) -> None:
    """A valid JWT of app A asking for app B's installation gets 404."""
    first = world.server.add_app(f"first-{world.name}", world.slug)
    second = world.server.add_app(f"second-{world.name}", world.slug)
    with _client(world, _jwt(first.app_id, first.private_key_path.read_bytes())) as app:
        check_error_shape(
            app.post(f"/app/installations/{second.installation_id}/access_tokens"), 404
        )
