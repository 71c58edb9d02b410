"""Repository operations of the GitHub client: identity, permissions, facts, branches."""

from __future__ import annotations

from typing import Any

from githubkit_schemas.latest.models import (
    BranchWithProtection,
    RepositoryRuleRequiredStatusChecks,
    StatusCheckPolicy,
)
from pydantic import ValidationError as ModelError

from conveyor.forge.errors import ForgeError, NotFound, Unauthorized, Validation
from conveyor.forge.github.base import ClientBase, has_next_page
from conveyor.forge.github.convert import to_branch, to_repo, to_required
from conveyor.forge.protocol import Permission
from conveyor.forge.types import Branch, RepoInfo, RequiredChecks

_ROLES: dict[str, Permission] = {
    "admin": "admin",
    "maintain": "maintain",
    "write": "write",
    "triage": "triage",
    "read": "read",
    "none": "none",
}


class RepoOps(ClientBase):
    """Who the client is, what a user may do, and the repository's branches."""

    def installation_token(self) -> str | None:
        """A fresh installation token when acting as a GitHub App (asked with its JWT)."""
        if self._app is None:
            return None
        installation = self._app.installation_id
        answer = self._run(
            "installation token",
            None,
            lambda: self._kit.rest.apps.create_installation_access_token(installation),
        )
        return answer.parsed_data.token

    def whoami(self) -> str:
        """The login the token acts as; for a GitHub App, `SLUG[bot]`.

        `/user` refuses installation tokens, so an App is checked through the
        repository's installation (asked with the App's JWT): it must be the
        configured installation of the configured App.
        """
        if self._app is None:
            response = self._run("whoami", None, self._kit.rest.users.get_authenticated)
            return response.parsed_data.login
        app = self._app
        answer = self._run(
            "whoami",
            None,
            lambda: self._kit.rest.apps.get_repo_installation(self._owner, self._name),
        )
        installation = answer.parsed_data
        if installation.id != app.installation_id or installation.app_slug != app.slug:
            message = (
                f"{self.repo} is installed as app {installation.app_slug!r} "
                f"(installation {installation.id}), not the configured {app.slug!r} "
                f"(installation {app.installation_id})"
            )
            raise Unauthorized("whoami", None, message)
        return app.login

    def repo_info(self) -> RepoInfo:
        """The repository's default branch, clone URL and wiki."""
        response = self._run(
            "repository facts", None, lambda: self._kit.rest.repos.get(self._owner, self._name)
        )
        return to_repo(response.parsed_data)

    def permission(self, login: str) -> Permission:
        """`login`'s role on the repository; `none` when GitHub knows no such user."""
        try:
            response = self._run(
                f"permission of {login}",
                None,
                lambda: self._kit.rest.repos.get_collaborator_permission_level(
                    self._owner, self._name, login
                ),
            )
        except NotFound:
            return "none"
        answer = response.parsed_data
        # `permission` is the legacy four-level answer; `role_name` knows maintain/triage.
        return _ROLES.get(answer.role_name) or _ROLES.get(answer.permission, "none")

    def is_collaborator(self, login: str) -> bool:
        """Whether `login` is a collaborator (204) or not (404)."""
        try:
            self._run(
                f"is {login} a collaborator",
                None,
                lambda: self._kit.rest.repos.check_collaborator(self._owner, self._name, login),
            )
        except NotFound:
            return False
        return True

    def get_branch(self, name: str) -> Branch | None:
        """A branch and its head, or None when it does not exist."""
        path = self._path("branches", *name.split("/"))
        try:
            response = self._run(
                f"get branch {name}",
                None,
                lambda: self._kit.request("GET", path, response_model=BranchWithProtection),
            )
        except NotFound:
            return None
        return to_branch(response.parsed_data)

    def delete_branch(self, name: str) -> None:
        """Delete `refs/heads/NAME`; a branch that is already gone is not an error."""
        path = self._path("git", "refs", "heads", *name.split("/"))
        try:
            self._run(f"delete branch {name}", None, lambda: self._kit.request("DELETE", path))
        except NotFound:
            return
        except Validation as exc:
            # GitHub answers 422 "Reference does not exist" for a missing ref.
            if "does not exist" not in exc.message.lower():
                raise

    def required_checks(self, branch: str) -> RequiredChecks | None:
        """The branch's required status checks; None when nothing requires any.

        GitHub applies classic branch protection and every active ruleset that
        matches the branch together: the contexts are both's, and the branch must
        be up to date when either says strict.
        """
        classic = self._protection_checks(branch)
        rules = self._ruleset_checks(branch)
        if classic is None or rules is None:
            return classic or rules
        contexts = tuple(dict.fromkeys(classic.contexts + rules.contexts))
        return RequiredChecks(contexts=contexts, strict=classic.strict or rules.strict)

    def _ruleset_checks(self, branch: str) -> RequiredChecks | None:
        """The `required_status_checks` rules of the active rulesets on `branch` (all pages).

        Only that rule type is parsed (with githubkit's model for it): a rule type
        GitHub adds later must not break reading the ones we know.
        """
        path = self._path("rules", "branches", *branch.split("/"))
        contexts: list[str] = []
        strict = False
        found = False
        page = 0
        while True:
            page += 1
            response = self._run(
                f"rules of {branch}",
                None,
                lambda page=page: self._kit.request(  # type: ignore[misc]
                    "GET",
                    path,
                    params={"per_page": 100, "page": page},
                    response_model=list[dict[str, Any]],
                ),
            )
            for raw in response.parsed_data:
                if raw.get("type") != "required_status_checks":
                    continue
                rule = self._checked(branch, raw)
                params = rule.parameters
                if not params:
                    continue
                found = True
                contexts.extend(check.context for check in params.required_status_checks)
                strict = strict or params.strict_required_status_checks_policy
            if not has_next_page(response.raw_response):
                break
        return RequiredChecks(tuple(dict.fromkeys(contexts)), strict) if found else None

    @staticmethod
    def _checked(branch: str, raw: dict[str, Any]) -> RepositoryRuleRequiredStatusChecks:
        try:
            return RepositoryRuleRequiredStatusChecks.model_validate(raw)
        except ModelError as exc:
            message = f"a required_status_checks rule did not match GitHub's schema: {exc}"
            raise ForgeError(f"rules of {branch}", None, message) from exc

    def _protection_checks(self, branch: str) -> RequiredChecks | None:
        """Classic branch protection's required status checks; None when it has none.

        GitHub answers 404 both for "Branch not protected" and "Required status
        checks not enabled": either way nothing is required.
        """
        path = self._path("branches", *branch.split("/"), "protection", "required_status_checks")
        try:
            response = self._run(
                f"required checks of {branch}",
                None,
                lambda: self._kit.request("GET", path, response_model=StatusCheckPolicy),
            )
        except NotFound:
            return None
        return to_required(response.parsed_data)
