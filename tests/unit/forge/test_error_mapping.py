"""GitHub's error answers become the forge's typed errors, naming the operation and number."""

from __future__ import annotations

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
from tests.unit.forge.scripted import Script, status


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
