"""Arbitrary JSON bodies sent to every write route get a 2xx or a 4xx, never a 500."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conveyor.emulator.app.server import ForgeServer
from tests.contract.emulator.conftest import make_world

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "title",
                    "body",
                    "state",
                    "state_reason",
                    "labels",
                    "name",
                    "color",
                    "new_name",
                    "description",
                    "sub_issue_id",
                    "after_id",
                    "before_id",
                    "replace_parent",
                    "permission",
                ]
            ),
            inner,
            max_size=4,
        )
    ),
    max_leaves=8,
)
ROUTES = [
    ("POST", "/issues"),
    ("PATCH", "/issues/1"),
    ("POST", "/issues/1/comments"),
    ("POST", "/labels"),
    ("PATCH", "/labels/bug"),
    ("POST", "/issues/1/labels"),
    ("PUT", "/issues/1/labels"),
    ("POST", "/issues/1/sub_issues"),
    ("DELETE", "/issues/1/sub_issue"),
    ("PATCH", "/issues/1/sub_issues/priority"),
    ("PUT", "/collaborators/someone"),
]


@pytest.fixture(scope="module")
def target(
    forge_server: ForgeServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[httpx.Client, str]]:
    """The owner's client and the API path of a repository with issue 1 and label `bug`."""
    world = make_world(forge_server, tmp_path_factory.mktemp("never500"))
    with world.client(world.owner_token) as owner:
        owner.post(f"{world.repo_path}/issues", json={"title": "first"})
        owner.post(f"{world.repo_path}/labels", json={"name": "bug"})
        yield owner, world.repo_path


@settings(max_examples=50, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(route=st.sampled_from(ROUTES), body=JSON_VALUES)
def test_any_json_body_gets_a_github_answer(
    target: tuple[httpx.Client, str], route: tuple[str, str], body: Any
) -> None:
    """Whatever JSON arrives, the forge answers below 500 with a JSON body."""
    owner, repo_path = target
    method, path = route
    answer = owner.request(method, repo_path + path, json=body)
    assert answer.status_code < 500, (method, path, body, answer.text)
    if answer.status_code != 204:
        answer.json()
