"""The demo's scenario: every scripted session of every demo issue, as `sessions` entries.

`python -m conveyor.cli.demo.scenario` prints the JSON shipped as
`conveyor/sample/demo-scenario.json`; a unit test keeps the two equal.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

from conveyor.cli.demo import changes as c
from conveyor.core.replies import SPEC_END

Entry = dict[str, Any]
SCENARIO_FILE = "demo-scenario.json"
ASK_QUESTION = "Restock each item to what level?"
# The fixer resolves the review's one finding: the guard's message names the quantity.
FINDING = {
    "severity": "blocking",
    "file": "inventory/stock.py",
    "line": 27,
    "evidence": "the new StockError says 'bad quantity' without the value that was refused",
    "suggestion": "name the quantity in the message, as add() does",
}
# The wiki-only issue's page, linked from the wiki's Home page (a new page must be linked).
WIKI_PAGE = "Stock-Levels.md"
WIKI_PAGE_TEXT = (
    "# Stock levels\n\nAn item is low when it has fewer units than the report's threshold.\n"
    "`low_stock(stock, n)` lists those items by name.\n"
)
WIKI_HOME = "Welcome to the inventory wiki!\n\n- [[Stock Levels]]\n"
# After writing both issues' label() into the conflicted file: finish the stopped rebase.
RESOLVE = "git add inventory/labels.py && GIT_EDITOR=true git rebase --continue"


def shipped_path() -> Path:
    """The scenario file shipped as package data."""
    return Path(str(resources.files("conveyor") / "sample" / SCENARIO_FILE))


def _turn(*actions: Entry) -> Entry:
    return {"usage": {"input": 6000, "output": 400, "cache_read": 2000}, "actions": list(actions)}


def _entry(tag: str, kind: str, *turns: Entry) -> Entry:
    return {"tag": tag, "kind": kind, "turns": list(turns)}


def _reply(tag: str, kind: str, answer: Entry, *before: Entry) -> Entry:
    turns = [_turn(*before)] if before else []
    return _entry(tag, kind, *turns, _turn({"reply": answer}))


def triage(tag: str, decision: str = "ready", questions: tuple[str, ...] = ()) -> Entry:
    """A triage session: ready (or asking `questions`)."""
    notes = "Small and clear." if decision == "ready" else "One thing is unclear."
    answer = {"decision": decision, "notes": notes, "questions": list(questions)}
    return _reply(tag, "triage", answer | {"reason": None, "summary": f"triage: {decision}"})


def spec_text(change: c.Change) -> str:
    """A spec with every section the spec writer must give, ending with the end marker."""
    return (
        f"## Behaviour\n- {change.behaviour}\n\n## Out of scope\nNothing else.\n\n## Design\n"
        f"`{change.module}`.\n\n## Test interfaces\n`{change.signature}`\n\n## Tests\n"
        f"`{change.test_path}`.\n\n## Wiki updates\nNone.\n\n## Assumptions and risks\nNone."
        f"\n\n## Sources\nThe issue.\n{SPEC_END}\n"
    )


def spec_answer(change: c.Change | None, decision: str = "ready", **more: Any) -> Entry:
    """The spec writer's reply."""
    interfaces = []
    if change is not None:
        name = change.signature.split("(")[0].removeprefix("def ")
        interfaces = [
            {"name": name, "kind": "function", "where": change.module, "status": change.status,
             "signature": change.signature, "behaviours": [change.behaviour]},
        ]  # fmt: skip
    spec = spec_text(change) if change is not None else f"## Behaviour\n- Split.\n{SPEC_END}\n"
    answer: Entry = {"decision": decision, "spec": spec, "questions": [], "sub_issues": []}
    answer |= {"interfaces": interfaces, "no_tests_reason": None, "wiki_only": False}
    return answer | {"spec_in_draft": False, "status": "done", "summary": "spec ready"} | more


def spec(tag: str, change: c.Change) -> Entry:
    """A spec writer that commits the failing test (and the new module's stub)."""
    files: list[Entry] = [{"write": {"path": change.test_path, "content": change.test}}]
    if change.stub:
        files.insert(0, {"write": {"path": change.module, "content": change.stub}})
    files.append({"commit": f"Specify {change.module} with a failing test"})
    return _reply(tag, "spec", spec_answer(change), *files)


def _writer(answer: Entry, path: str, content: str, message: str) -> list[Entry]:
    return [{"write": {"path": path, "content": content}}, {"commit": message}]


def implement(tag: str, path: str, content: str) -> Entry:
    """An implementer that writes `content` to `path` and commits."""
    answer = {"status": "done", "summary": f"{path} done.", "blocked_reason": None}
    files = _writer(answer, path, content, f"Implement {path}")
    return _reply(tag, "implement", answer | {"deviations": []}, *files)


def edit_in_place(tag: str, path: str, script: str) -> Entry:
    """An implementer that edits `path` in place with a sed `script`, then commits it: the change
    lands on what the branch holds when it runs, as a model's edit does, not on what the
    scenario's author saw (a branch begun after another issue changed the same line keeps it)."""
    if "'" in script:
        msg = f"a sed script for {path} must not hold a single quote: {script!r}"
        raise ValueError(msg)
    answer = {"status": "done", "summary": f"{path} done.", "blocked_reason": None}
    run = {"run": f"sed '{script}' {path} > {path}.new && mv {path}.new {path}"}
    commit = {"commit": {"message": f"Implement {path}", "paths": [path]}}
    return _reply(tag, "implement", answer | {"deviations": []}, run, commit)


def lens(tag: str, name: str, *found: Entry) -> Entry:
    """A first-review lens."""
    return _reply(tag, f"review-{name}", {"lens": name, "findings": list(found), "summary": name})


def back_half(tag: str, *, finding: bool = False) -> list[Entry]:
    """Review (one finding for `finding`), its fix round, acceptance and security."""
    out = [lens(tag, "correctness", *([FINDING] if finding else [])), lens(tag, "tests")]
    out.append(lens(tag, "scope"))
    if finding:
        fixed = template_file(c.BUGFIX.module).replace(c.REMOVE_OLD, c.BUGFIX_FIXED, 1)
        answer: Entry = {"status": "done", "summary": "The message names the quantity."}
        answer |= {"addressed": [{"finding": 1, "how": "f-string"}], "disputes": []}
        out.append(_reply(tag, "fix", answer, *_writer(answer, c.BUGFIX.module, fixed, "Name it")))
        rereview = {"rulings": [], "still_open": [], "findings": [], "summary": "F1 resolved"}
        out.append(_reply(tag, "rereview-correctness", rereview))
    accept: Entry = {"verdict": "pass", "reason": "does what the issue asks", "missing": []}
    accept |= {"no_tests_reason_holds": None, "summary": "accepted"}
    out.append(_reply(tag, "accept", accept))
    out.append(_reply(tag, "security", {"findings": [], "summary": "nothing harmful"}))
    return out


def template_file(path: str) -> str:
    """A file of the sample template."""
    root = resources.files("conveyor") / "sample" / "template"
    return (root / path).read_text(encoding="utf-8")


def _feature(tag: str, change: c.Change, *, finding: bool = False) -> list[Entry]:
    done = change.done
    if change.status == "changed":
        done = template_file(change.module).replace(c.REMOVE_OLD, change.done, 1)
    front = [triage(tag), spec(tag, change), implement(tag, change.module, done)]
    return [*front, *back_half(tag, finding=finding)]


def _same(tag: str, content: str, script: str, test: str) -> list[Entry]:
    change = c.Change(
        module="inventory/labels.py",
        stub="",
        done=content,
        test_path=f"tests/test_labels_{tag[-1]}.py",
        test=test,
        behaviour=f"label() changes ({tag}).",
        signature="def label(name: str) -> str",
        status="changed",
    )
    resolved = {"status": "done", "choices": "kept both changes", "summary": "resolved"}
    both = {"write": {"path": "inventory/labels.py", "content": c.SAME_BOTH}}
    resolver = _reply(tag, "resolver", resolved, both, {"run": RESOLVE})
    entries = [triage(tag), spec(tag, change), edit_in_place(tag, change.module, script)]
    return [*entries, resolver, *back_half(tag)]


def wiki_only(tag: str) -> list[Entry]:
    """A spec writer whose wiki page is the whole change, then the usual back half."""
    spec = (
        "## Behaviour\n- The wiki explains stock levels on a page linked from Home.\n\n"
        "## Out of scope\nCode.\n\n## Design\nA wiki page.\n\n## Tests\nNone: only the "
        "wiki changes.\n\n## Wiki updates\nA new Stock levels page, linked from Home.\n\n"
        f"## Assumptions and risks\nNone.\n\n## Sources\nThe issue.\n{SPEC_END}\n"
    )
    answer = spec_answer(None, spec=spec, no_tests_reason="only the wiki changes", wiki_only=True)
    pages = [
        {"write": {"path": f"wiki/{WIKI_PAGE}", "content": WIKI_PAGE_TEXT}},
        {"write": {"path": "wiki/Home.md", "content": WIKI_HOME}},
        {"commit": {"message": "Explain stock levels", "dir": "wiki"}},
    ]
    return [triage(tag), _reply(tag, "spec", answer, *pages), *back_half(tag)]


def build() -> dict[str, list[Entry]]:
    """The whole demo scenario."""
    parts = [
        {"title": "Add unit prices [split-prices]", "body": "Unit prices in cents.", "after": []},
        {"title": "Value the stock [split-value]", "body": "Price times quantity.", "after": [0]},
    ]
    sessions = [
        *_feature("clean", c.CLEAN),
        *_feature("bugfix", c.BUGFIX, finding=True),
        triage("split"),
        _reply("split", "spec", spec_answer(None, "split", sub_issues=parts)),
        *_feature("split-prices", c.PRICES),
        *_feature("split-value", c.VALUE),
        triage("ask", "needs-info", (ASK_QUESTION,)),
        *_feature("ask", c.RESTOCK),
        *_same("same-a", c.SAME_A, c.SAME_A_EDIT, c.SAME_A_TEST),
        *_same("same-b", c.SAME_B, c.SAME_B_EDIT, c.SAME_B_TEST),
        *wiki_only("wiki"),
    ]
    return {"sessions": sessions}


def render() -> str:
    """The scenario file's text."""
    return json.dumps(build(), indent=1) + "\n"


if __name__ == "__main__":
    print(render(), end="")  # noqa: T201 - the module's command-line use


def advance_past_question(path: Path, tag: str) -> bool:
    """Drop the tag's first asking triage entry from the scenario file at `path`.

    The scripted agent cannot read an answer; this is its stand-in for a model
    that does: once the person has answered, triage for `tag` says ready.
    """
    data = json.loads(path.read_text(encoding="utf-8"))
    sessions: list[Entry] = data["sessions"]
    for i, entry in enumerate(sessions):
        replies = [a["reply"] for t in entry["turns"] for a in t["actions"] if "reply" in a]
        asks = any(r.get("decision") == "needs-info" for r in replies)
        if entry.get("tag") == tag and entry.get("kind") == "triage" and asks:
            del sessions[i]
            partial = path.with_name(f".{path.name}.partial")
            partial.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
            partial.replace(path)
            return True
    return False
