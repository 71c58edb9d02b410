"""GitHub's error answers become the forge's typed errors, naming the operation and number."""

from __future__ import annotations

import httpx
import pytest

from conveyor.forge.errors import (
    Conflict,
    ForgeError,
    NotFound,
    NotMergeable,
    RateLimited,
    Unauthorized,
    Validation,
)
from tests.unit.forge.scripted import Script, example, status


@pytest.mark.parametrize(
    ("code", "body", "expected"),
    [
        (401, {"message": "Bad credentials"}, Unauthorized),
        (403, {"message": "Resource not accessible by integration"}, Unauthorized),
        (404, {"message": "Not Found"}, NotFound),
        (409, {"message": "Head branch was modified. Review and try the merge again."}, Conflict),
        (405, {"message": "Pull Request is not mergeable"}, NotMergeable),
        (429, {"message": "too many"}, RateLimited),
    ],
)
def test_a_merge_refusal_maps_to_its_typed_error(
    code: int, body: dict[str, str], expected: type[ForgeError]
) -> None:
    """Each refusal of a merge is its own error type, and says which PR and what GitHub said."""
    script = Script(status(code, body=body))
    with pytest.raises(expected) as caught:
        script.forge(attempts=1).merge_pr(12, "abc123", "title", "message")
    assert caught.value.operation == "merge PR"
    assert caught.value.number == 12
    assert body["message"] in str(caught.value)


def test_a_422_keeps_github_s_error_list() -> None:
    """A validation failure carries GitHub's errors, one line each."""
    body = {
        "message": "Validation Failed",
        "errors": [{"resource": "Issue", "field": "body", "code": "custom", "message": "too long"}],
    }
    script = Script(status(422, body=body))
    with pytest.raises(Validation) as caught:
        script.forge().create_comment(4, "x" * 10)
    assert caught.value.errors == ("Issue.body: custom (too long)",)
    assert str(caught.value) == (
        "create comment (#4): 422 Validation Failed: Issue.body: custom (too long)"
    )


def test_an_answer_that_does_not_match_github_s_schema_is_a_forge_error() -> None:
    """A 200 whose body githubkit cannot parse fails as a ForgeError, not a pydantic error."""
    script = Script(status(200, body={"number": "not a number"}))
    with pytest.raises(ForgeError, match=r"get issue \(#2\): the response did not match"):
        script.forge().get_issue(2)


def test_removing_an_absent_label_and_reading_a_missing_branch_are_not_errors() -> None:
    """404s that mean "already so" are answers: nothing raised, None for the branch."""
    script = Script(status(404, body={"message": "Label does not exist"}))
    forge = script.forge()
    forge.remove_label(3, "agent:working")
    assert forge.get_branch("conveyor/issue-3") is None
    assert script.requests[0].url.raw_path == b"/repos/o/r/issues/3/labels/agent%3Aworking"
    assert script.requests[1].url.raw_path == b"/repos/o/r/branches/conveyor/issue-3"


def test_a_refused_app_token_is_unauthorized_not_transient() -> None:
    """When minting the installation token is refused (401), the call fails as Unauthorized."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    from conveyor.forge.github import AppIdentity, app_forge

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    script = Script(status(401, body={"message": "A JSON web token could not be decoded"}))
    forge = app_forge(
        "o/r",
        AppIdentity(1, "bot", 2),
        pem,
        base_url="http://forge.test",
        transport=httpx.MockTransport(script.handle),
    )
    with pytest.raises(Unauthorized, match="JSON web token"):
        forge.get_issue(1)
    assert script.requests[0].url.path == "/app/installations/2/access_tokens"


def test_a_graphql_rate_limit_inside_a_200_is_rate_limited() -> None:
    """GitHub reports a spent GraphQL limit as an error of type RATE_LIMITED in a 200."""
    pr = example("pull-request")
    pr.update(labels=[], requested_teams=[])  # the example predates githubkit's current model
    body = {"errors": [{"type": "RATE_LIMITED", "message": "API rate limit exceeded"}]}
    script = Script(httpx.Response(200, json=pr), status(200, {"Retry-After": "9"}, body))
    with pytest.raises(RateLimited) as caught:
        script.forge(attempts=1).mark_pr_ready(1347)
    assert caught.value.retry_after == 9.0
    assert caught.value.operation == "mark PR ready"
