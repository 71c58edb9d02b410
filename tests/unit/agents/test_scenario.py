"""Scenario files: loading with errors that say where, issue tags, matching on identity."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conveyor.agents.scripted.main import parse_argv
from conveyor.agents.scripted.scenario import ScenarioError, choose, identity, issue_tag, load
from conveyor.core.replies import validate_reply


def write(tmp_path: Path, data: object, name: str = "s.json") -> Path:
    """A scenario file holding `data` as JSON."""
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def test_a_toml_scenario_loads_like_json(tmp_path: Path) -> None:
    """TOML files are read by their suffix."""
    path = tmp_path / "s.toml"
    path.write_text(
        '[[sessions]]\ntag = "happy"\nkind = "triage"\n\n[[sessions.turns]]\ntext = "hi"\n'
        'usage = { input = 5, output = 1 }\nactions = [{ run = "true" }]\n'
    )
    [entry] = load(path)
    assert entry.match == {"tag": "happy", "kind": "triage"}
    assert entry.turns[0].usage == {"input": 5, "output": 1}


def test_an_unknown_action_is_an_error_naming_its_place(tmp_path: Path) -> None:
    """The message points at sessions[0].turns[1].actions[0]."""
    data: dict[str, Any] = {"sessions": [{"turns": [{}, {"actions": [{"wrte": {}}]}]}]}
    with pytest.raises(ScenarioError, match=r"sessions\[0\]\.turns\[1\]\.actions\[0\]"):
        load(write(tmp_path, data))


def test_an_action_with_the_wrong_shape_is_an_error_naming_it(tmp_path: Path) -> None:
    """`write` needs a table with a path; a bare string is refused at load."""
    data: dict[str, Any] = {"sessions": [{"turns": [{"actions": [{"write": "a.txt"}]}]}]}
    with pytest.raises(ScenarioError, match=r"actions\[0\]\.write"):
        load(write(tmp_path, data))
    data = {"sessions": [{"turns": [{"actions": [{"fail": "explode"}]}]}]}
    with pytest.raises(ScenarioError, match=r"actions\[0\]\.fail"):
        load(write(tmp_path, data))


def test_an_unknown_entry_key_is_an_error(tmp_path: Path) -> None:
    """A misspelt match key is refused rather than silently matching everything."""
    with pytest.raises(ScenarioError, match="stgae"):
        load(write(tmp_path, {"sessions": [{"stgae": "triage"}]}))


def test_a_file_without_sessions_is_an_error(tmp_path: Path) -> None:
    """The top level must hold a `sessions` list."""
    with pytest.raises(ScenarioError, match="sessions"):
        load(write(tmp_path, {"turns": []}))


def test_the_tag_comes_from_the_title_or_the_body_marker() -> None:
    """`[tag]` in the title line, or `<!-- scenario: NAME -->` anywhere; the marker wins."""
    assert issue_tag("# [happy] Add a flag\n\nbody") == "happy"
    assert issue_tag("Add a flag\n\n<!-- scenario: slow-one -->") == "slow-one"
    assert issue_tag("Add a flag\n\nsee [not-a-tag] in the body") is None


def test_task_text_yields_only_the_body_marker() -> None:
    """Without an issue file, a bracket in the prompt is never taken as the tag."""
    assert issue_tag("[prompt] do things", has_title=False) is None
    assert issue_tag("do <!-- scenario: x --> things", has_title=False) == "x"


def test_the_first_entry_matching_every_given_key_is_chosen(tmp_path: Path) -> None:
    """Entries match on identity; unspecified keys match anything; order decides."""
    data = {
        "sessions": [
            {"tag": "a", "kind": "triage", "retry": 1, "final": "retry"},
            {"tag": "a", "kind": "triage", "final": "first"},
            {"final": "fallback"},
        ]
    }
    entries = load(write(tmp_path, data))
    env = {"CONVEYOR_SESSION_KIND": "triage", "CONVEYOR_ISSUE": "4", "CONVEYOR_RETRY": "0"}
    first = choose(entries, identity(env, "a"))
    retry = choose(entries, identity({**env, "CONVEYOR_RETRY": "1"}, "a"))
    other = choose(entries, identity(env, "b"))
    assert first is not None
    assert retry is not None
    assert other is not None
    assert (first.final, retry.final, other.final) == ("first", "retry", "fallback")


def test_claudes_command_line_is_accepted() -> None:
    """Value flags take their value; switches and positional prompts are kept apart."""
    options, positional = parse_argv(
        [
            "-p",
            "--output-format",
            "stream-json",
            "--verbose",
            "--model",
            "m",
            "--max-turns",
            "3",
            "hi",
        ]
    )
    assert options["--output-format"] == "stream-json"
    assert options["--model"] == "m"
    assert "--verbose" in options
    assert positional == ["hi"]


def test_the_toml_example_in_the_docs_loads_and_its_replies_validate(tmp_path: Path) -> None:
    """docs/scenarios.md's example is a working scenario whose replies fit their models."""
    docs = Path(__file__).resolve().parents[3] / "docs" / "scenarios.md"
    example = docs.read_text().split("```toml\n", 1)[1].split("```", 1)[0]
    path = tmp_path / "example.toml"
    path.write_text(example)
    entries = load(path)
    models = {"triage": "triage", "spec": "spec", "implement": "implement"}
    checked = 0
    for entry in entries:
        model = models[str(entry.match["kind"])]
        replies = [a["reply"] for turn in entry.turns for a in turn.actions if "reply" in a]
        if entry.handoff_reply is not None:
            replies.append(entry.handoff_reply)
        for reply in replies:
            assert validate_reply(model, reply).findings == ()
            checked += 1
    assert checked == 3


def test_the_wiki_only_example_in_the_docs_loads_and_its_reply_validates(tmp_path: Path) -> None:
    """docs/scenarios.md's wiki-only spec writer commits in `wiki` and replies wiki_only."""
    docs = Path(__file__).resolve().parents[3] / "docs" / "scenarios.md"
    example = docs.read_text().split("```toml\n")[2].split("```", 1)[0]
    path = tmp_path / "wiki.toml"
    path.write_text(example)
    (entry,) = load(path)
    commits = [a["commit"] for turn in entry.turns for a in turn.actions if "commit" in a]
    assert commits == [{"message": "Explain stock levels", "dir": "wiki"}]
    (answer,) = [a["reply"] for turn in entry.turns for a in turn.actions if "reply" in a]
    assert answer["wiki_only"] is True
    assert validate_reply("spec", answer).findings == ()
