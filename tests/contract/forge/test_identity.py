"""Who the client is, what users may do, and the repository's facts, against the embedded forge."""

from __future__ import annotations

import pytest

from conveyor.forge.errors import Unauthorized
from conveyor.forge.github import AppIdentity
from tests.contract.forge.conftest import OWNER, PIPELINE, TRUSTED, VISITOR, World

pytestmark = pytest.mark.contract


def test_whoami_is_the_token_s_login(world: World) -> None:
    """A personal token acts as its user."""
    assert world.pipeline.whoami() == PIPELINE
    assert world.visitor.whoami() == VISITOR


def test_a_bad_token_is_unauthorized(world: World) -> None:
    """A token the forge does not know is refused as Unauthorized, naming the call."""
    with pytest.raises(Unauthorized, match="whoami"):
        world.client("not-a-token").whoami()


def test_an_app_acts_as_its_bot_through_its_installation(world: World) -> None:
    """GitHub App auth end to end: whoami is SLUG[bot], and its comments are signed so."""
    created = world.server.add_app("conveyor-app", install=world.repo)
    assert created.installation_id is not None
    app = AppIdentity(created.app_id, "conveyor-app", created.installation_id)
    forge = world.app_client(app, created.private_key_path.read_text())
    assert forge.whoami() == "conveyor-app[bot]"
    issue = world.trusted.create_issue("App test", "body")
    assert forge.create_comment(issue.number, "hello from the app").author == "conveyor-app[bot]"


def test_an_apps_installation_token_acts_as_its_bot_and_a_token_account_has_none(
    world: World,
) -> None:
    """The token handed to git for an App is a working installation token of SLUG[bot]."""
    created = world.server.add_app("token-app", install=world.repo)
    assert created.installation_id is not None
    app = AppIdentity(created.app_id, "token-app", created.installation_id)
    forge = world.app_client(app, created.private_key_path.read_text())
    token = forge.installation_token()
    assert token
    issue = world.trusted.create_issue("Token test", "body")
    assert world.client(token).create_comment(issue.number, "hi").author == "token-app[bot]"
    assert world.pipeline.installation_token() is None


def test_an_app_configured_with_another_slug_is_refused(world: World) -> None:
    """A configured slug that is not the installed App's fails whoami instead of acting."""
    created = world.server.add_app("other-app", install=world.repo)
    assert created.installation_id is not None
    app = AppIdentity(created.app_id, "not-other-app", created.installation_id)
    forge = world.app_client(app, created.private_key_path.read_text())
    with pytest.raises(Unauthorized, match="not the configured 'not-other-app'"):
        forge.whoami()


def test_permissions_follow_collaborator_roles(world: World) -> None:
    """The owner is admin, collaborators write, a visitor has no write role."""
    assert world.pipeline.permission(OWNER) == "admin"
    assert world.pipeline.permission(TRUSTED) == "write"
    assert world.pipeline.permission(VISITOR) in ("read", "none")
    assert world.pipeline.permission("nobody-at-all") == "none"


def test_collaborators_are_told_apart_from_visitors(world: World) -> None:
    """Collaborators answer True; visitors and unknown logins False."""
    assert world.pipeline.is_collaborator(TRUSTED)
    assert not world.pipeline.is_collaborator(VISITOR)
    assert not world.pipeline.is_collaborator("nobody-at-all")


def test_repository_facts(world: World) -> None:
    """Default branch, clone URL and wiki as created."""
    info = world.visitor.repo_info()
    assert info.full_name == world.repo
    assert info.default_branch == world.default_branch == "main"
    assert info.clone_url == world.clone_url
    assert info.clone_url.startswith("file://")
    assert not info.has_wiki
    assert info.wiki_clone_url is None
