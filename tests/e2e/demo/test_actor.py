"""The demo's person: answers the pipeline's question once, as the trusted user, on the forge."""

from __future__ import annotations

import os
from itertools import count

from conveyor.cli.demo.actor import Actor
from conveyor.core.labels import Status
from conveyor.core.pickup import QUESTIONS
from conveyor.core.signatures import Signature
from conveyor.emulator.app.server import ForgeServer
from conveyor.forge.github import token_forge

_N = count(1)
ASKED = Signature("triage", "scripted", "m", "run1").sign(QUESTIONS, "1. Which level?")
CLAIM = Signature("coordinator", "scripted", "m", "run2").sign("claim", "Working on it.")


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
        bot.create_comment(issue.number, ASKED)
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


def test_the_actor_does_not_answer_again_when_the_pipeline_claims_before_the_label_comes_off(
    forge_server: ForgeServer,
) -> None:
    """The claim comment lands while `agent:needs-info` is still on: no second answer."""
    repo, tokens = _repo(forge_server)
    bot = token_forge(repo, tokens["bot"], base_url=forge_server.url)
    alice = token_forge(repo, tokens["alice"], base_url=forge_server.url)
    asked = alice.create_issue("Add a helper [ask]", "Do it.")
    bot.add_labels(asked.number, [Status.NEEDS_INFO.value])
    bot.create_comment(asked.number, ASKED)
    actor = Actor(alice, "alice", "bot", {"ask": "Ten."})
    assert actor.pass_once() == [asked.number]
    bot.create_comment(asked.number, CLAIM)
    assert actor.pass_once() == []
    bot.create_comment(asked.number, ASKED)
    assert actor.pass_once() == [asked.number]
    answers = [c for c in alice.list_comments(asked.number).comments if c.author == "alice"]
    assert len(answers) == 2
