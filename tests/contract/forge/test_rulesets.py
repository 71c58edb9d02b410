"""Required checks from repository rulesets as well as classic protection, client and forge."""

from __future__ import annotations

from typing import Any

import pytest
from githubkit.exception import RequestFailed

from conveyor.forge.errors import NotMergeable
from conveyor.testing import http
from tests.contract.forge.conftest import OWNER, World, push_change

pytestmark = pytest.mark.contract


def _checks(*contexts: str, strict: bool = False) -> dict[str, Any]:
    return {
        "type": "required_status_checks",
        "parameters": {
            "required_status_checks": [{"context": c} for c in contexts],
            "strict_required_status_checks_policy": strict,
        },
    }


def _ruleset(
    world: World,
    name: str,
    include: list[str],
    rules: list[dict[str, Any]],
    *,
    enforcement: str = "active",
    exclude: list[str] | None = None,
) -> int:
    """An admin's branch ruleset; its id."""
    body: Any = {
        "name": name,
        "target": "branch",
        "enforcement": enforcement,
        "conditions": {"ref_name": {"include": include, "exclude": exclude or []}},
        "rules": rules,
    }
    answer = world.admin.kit.rest.repos.create_repo_ruleset(
        OWNER, world.repo.split("/")[1], data=body
    )
    return int(answer.parsed_data.id)


def _protect(world: World, branch: str, *contexts: str) -> None:
    world.admin.kit.rest.repos.update_branch_protection(
        OWNER,
        world.repo.split("/")[1],
        branch,
        required_status_checks={"strict": False, "contexts": list(contexts)},
        enforce_admins=None,
        required_pull_request_reviews=None,
        restrictions=None,
    )


def test_a_ruleset_on_the_default_branch_requires_its_checks(world: World) -> None:
    """A `~DEFAULT_BRANCH` ruleset alone: its contexts and strictness are what main requires."""
    _ruleset(world, "main checks", ["~DEFAULT_BRANCH"], [_checks("ci", "lint", strict=True)])
    required = world.pipeline.required_checks("main")
    assert required is not None
    assert (required.contexts, required.strict) == (("ci", "lint"), True)


def test_classic_protection_and_a_matching_ruleset_require_both_sets(world: World) -> None:
    """A protected release branch and a `release/*` ruleset: both contexts, once each."""
    push_change(world, "release/1", "src/r1.py", "R = 1\n")
    _protect(world, "release/1", "ci", "build")
    _ruleset(world, "releases", ["refs/heads/release/*"], [_checks("build", "security")])
    required = world.pipeline.required_checks("release/1")
    assert required is not None
    assert (required.contexts, required.strict) == (("ci", "build", "security"), False)


def test_disabled_evaluating_excluded_and_other_rulesets_require_nothing(world: World) -> None:
    """Only active rulesets whose patterns take the branch in (and do not exclude it) count."""
    every = ["refs/heads/t3/**"]
    _ruleset(world, "off", every, [_checks("off")], enforcement="disabled")
    _ruleset(world, "trial", every, [_checks("trial")], enforcement="evaluate")
    _ruleset(world, "hotfix", ["refs/heads/t3/hotfix/**"], [_checks("hot")])
    _ruleset(world, "not drafts", every, [_checks("all")], exclude=["refs/heads/t3/draft/*"])
    _ruleset(world, "linear", every, [{"type": "required_linear_history"}])
    assert world.pipeline.required_checks("t3/draft/x") is None
    assert world.pipeline.required_checks("t3x/other") is None
    deep = world.pipeline.required_checks("t3/hotfix/a/b")
    assert deep is not None
    assert deep.contexts == ("hot", "all")


def test_the_forge_refuses_a_merge_until_a_rulesets_check_passes(world: World) -> None:
    """`merge-gate/*` requires `gate`: the merge is refused, then lands once `gate` is green."""
    push_change(world, "merge-gate/base", "src/gate.py", "G = 0\n")
    _ruleset(world, "gate", ["refs/heads/merge-gate/*"], [_checks("gate")])
    sha = push_change(world, "topic-gate", "src/gate.py", "G = 1\n", base="merge-gate/base")
    pr = world.pipeline.create_draft_pr("topic-gate", "merge-gate/base", "Gate", "Body.")
    world.pipeline.mark_pr_ready(pr.number)
    with pytest.raises(NotMergeable, match="gate"):
        world.pipeline.merge_pr(pr.number, sha, "Gate", "")
    world.admin.kit.rest.repos.create_commit_status(
        OWNER, world.repo.split("/")[1], sha, state="success", context="gate"
    )
    assert world.pipeline.merge_pr(pr.number, sha, "Gate", "").sha


def test_only_admins_write_rulesets_and_bad_rules_are_refused(world: World) -> None:
    """A writer's ruleset is 403; an unknown rule type or a check without a context is 422."""
    with pytest.raises(RequestFailed) as writer:
        world.trusted.kit.rest.repos.create_repo_ruleset(
            OWNER, world.repo.split("/")[1], name="x", enforcement="active", rules=[]
        )
    assert writer.value.response.status_code == 403
    # githubkit refuses an unknown rule type itself; the forge is asked directly.
    owner = {"Authorization": f"token {world.server.add_user(OWNER)}"}
    bad = {"name": "bad", "enforcement": "active", "rules": [{"type": "no_such_rule"}]}
    url = f"{world.server.url}/repos/{world.repo}/rulesets"
    assert http.post(url, headers=owner, json=bad).status_code == 422
    broken = _checks("ok")
    broken["parameters"]["required_status_checks"] = [{"context": ""}]
    with pytest.raises(RequestFailed) as empty:
        _ruleset(world, "broken", ["~ALL"], [broken])
    assert empty.value.response.status_code == 422
    assert world.pipeline.required_checks("t5/any") is None
