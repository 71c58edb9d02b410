"""The demo's person: answers the pipeline's question once, as the trusted user, on the forge."""

from __future__ import annotations

import os
from itertools import count

from conveyor.cli.demo.actor import Actor
from conveyor.core.labels import Status
from conveyor.forge.github import token_forge
from conveyor.testing.emulator import ForgeServer

_N = count(1)


def _repo(server: ForgeServer) -> tuple[str, dict[str, str]]:
    repo = f"acme/actor-{os.getpid()}-{next(_N)}"
    tokens = {login: server.add_user(login) for login in ("bot", "alice")}
    template = server.data_dir.parent / f"tpl-{repo.rsplit('/', 1)[1]}"
    template.mkdir()
    (template / "README.md").write_text("x\n")
    server.create_repo(repo, template)
    for login in tokens:
        server.add_collaborator(repo, login)
    return repo, tokens


def test_the_actor_answers_a_waiting_issue_once_and_leaves_others_alone(
    forge_server: ForgeServer,
) -> None:
    """Only `agent:needs-info` issues whose tag has an answer, and only after a new question."""
    repo, tokens = _repo(forge_server)
    bot = token_forge(repo, tokens["bot"], base_url=forge_server.url)
    alice = token_forge(repo, tokens["alice"], base_url=forge_server.url)
    asked = alice.create_issue("Add a helper [ask]", "Do it.")
    other = alice.create_issue("Something else [other]", "Do that.")
    for issue in (asked, other):
        bot.add_labels(issue.number, [Status.NEEDS_INFO.value])
        bot.create_comment(issue.number, "Which level?")
    seen: list[tuple[str, int]] = []
    actor = Actor(
        alice, "alice", "bot", {"ask": "Ten."}, on_answer=lambda t, n: seen.append((t, n))
    )
    assert actor.pass_once() == [asked.number]
    assert actor.pass_once() == []
    assert seen == [("ask", asked.number)]
    bodies = [(c.author, c.body) for c in alice.list_comments(asked.number).comments]
    assert bodies[-1] == ("alice", "Ten.")
    assert [c.author for c in alice.list_comments(other.number).comments] == ["bot"]
