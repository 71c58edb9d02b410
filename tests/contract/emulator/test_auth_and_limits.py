"""Auth, rate-limit headers, ETags and the request/point counters over loopback HTTP."""

from __future__ import annotations

import httpx

from tests.contract.emulator.conftest import World
from tests.contract.emulator.openapi_check import check_error_shape


def test_reads_need_no_token_and_writes_without_one_get_401(world: World) -> None:
    """Anonymous GETs work; an anonymous POST is 401 `Requires authentication`."""
    with world.client() as anonymous:
        assert anonymous.get(f"{world.repo_path}/issues").status_code == 200
        assert anonymous.get(world.repo_path).json()["full_name"] == world.slug
        refused = anonymous.post(f"{world.repo_path}/issues", json={"title": "x"})
    assert check_error_shape(refused, 401)["message"] == "Requires authentication"


def test_token_and_bearer_headers_both_authenticate(world: World) -> None:
    """`token X` and `Bearer X` name the same user."""
    for scheme in ("token", "Bearer"):
        with world.client(world.visitor_token, scheme) as client:
            assert client.get("/user").json()["login"] == world.visitor


def test_an_unknown_token_is_401_bad_credentials(world: World) -> None:
    """A token the forge never issued is refused even for reads."""
    with world.client("ghp_not-a-real-token") as client:
        answer = client.get(f"{world.repo_path}/issues")
    assert check_error_shape(answer, 401)["message"] == "Bad credentials"


def test_get_user_without_a_token_is_401(world: World) -> None:
    """`GET /user` needs a token."""
    with world.client() as anonymous:
        check_error_shape(anonymous.get("/user"), 401)


def test_every_answer_carries_rate_limit_headers_and_points_count_down(
    world: World, owner: httpx.Client
) -> None:
    """Each authenticated answer costs one point: Used goes up, Remaining down."""
    first = owner.get(f"{world.repo_path}/issues")
    second = owner.get(f"{world.repo_path}/labels")
    for answer in (first, second):
        for name in ("Limit", "Remaining", "Used", "Reset", "Resource"):
            assert f"X-RateLimit-{name}" in answer.headers
    assert int(second.headers["X-RateLimit-Used"]) == int(first.headers["X-RateLimit-Used"]) + 1
    remaining = int(second.headers["X-RateLimit-Remaining"])
    assert remaining == int(first.headers["X-RateLimit-Remaining"]) - 1
    with world.client() as anonymous:
        assert "X-RateLimit-Limit" in anonymous.get(world.repo_path).headers


def test_an_unchanged_list_answers_304_without_charging_a_point(
    world: World, owner: httpx.Client
) -> None:
    """Repeating the ETag gives an empty 304, costs no point and counts as one request."""
    owner.post(f"{world.repo_path}/issues", json={"title": "x"})
    url = f"{world.repo_path}/issues"
    first = owner.get(url, params={"per_page": 100, "sort": "updated", "direction": "desc"})
    etag = first.headers["ETag"]
    before = world.server.stats()
    again = owner.get(
        url,
        params={"per_page": 100, "sort": "updated", "direction": "desc"},
        headers={"If-None-Match": etag},
    )
    after = world.server.stats()
    assert again.status_code == 304
    assert again.content == b""
    assert again.headers["ETag"] == etag
    assert again.headers["X-RateLimit-Used"] == first.headers["X-RateLimit-Used"]
    assert after["requests"] - before["requests"] == 1
    assert after["points"] - before["points"] == 0
    assert after["not_modified"] - before["not_modified"] == 1


def test_a_change_to_the_list_invalidates_the_etag(world: World, owner: httpx.Client) -> None:
    """After a new comment bumps an issue, the old ETag gets a full 200."""
    number = owner.post(f"{world.repo_path}/issues", json={"title": "x"}).json()["number"]
    url = f"{world.repo_path}/issues/{number}/comments"
    etag = owner.get(url).headers["ETag"]
    owner.post(url, json={"body": "new"})
    fresh = owner.get(url, headers={"If-None-Match": etag})
    assert fresh.status_code == 200
    assert [c["body"] for c in fresh.json()] == ["new"]


def test_stats_count_requests_and_points(world: World, owner: httpx.Client) -> None:
    """Two authenticated requests and one anonymous one: 3 requests, 2 points."""
    before = world.server.stats()
    owner.get(world.repo_path)
    owner.get(f"{world.repo_path}/labels")
    with world.client() as anonymous:
        anonymous.get(world.repo_path)
    after = world.server.stats()
    assert after["requests"] - before["requests"] == 3
    assert after["points"] - before["points"] == 2


def test_unknown_paths_and_methods_answer_github_shaped_errors(owner: httpx.Client) -> None:
    """An unknown path is a JSON 404; a wrong method on a known path is a JSON 405."""
    check_error_shape(owner.get("/no/such/path"), 404)
    check_error_shape(owner.delete("/user"), 405)
