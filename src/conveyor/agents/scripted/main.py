"""`conveyor-scripted-agent`: accepts claude's command line and replays a scenario entry."""

from __future__ import annotations

import os
import sys
import time

from conveyor.agents.scripted.actions import (
    Workspace,
    perform,
    record_env,
    tool_input,
    tool_name,
)
from conveyor.agents.scripted.mcp_client import McpError
from conveyor.agents.scripted.scenario import (
    SCENARIO_EXIT,
    Entry,
    ScenarioError,
    choose,
    describe,
    identity,
    issue_tag,
    load,
)
from conveyor.agents.scripted.stream import EOF, Inbox, emit, usage_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, NoReturn

VALUE_FLAGS = frozenset(
    {
        "--output-format",
        "--input-format",
        "--model",
        "--append-system-prompt",
        "--system-prompt",
        "--mcp-config",
        "--permission-mode",
        "--allowedTools",
        "--allowed-tools",
        "--disallowedTools",
        "--max-turns",
        "--effort",
        "--setting-sources",
        "--fallback-model",
        "--json-schema",
        "--resume",
        "--session-id",
    }
)
STEER_WAIT_SECONDS = 30.0


def parse_argv(argv: list[str]) -> tuple[dict[str, str], list[str]]:
    """claude's options (value flags and switches) and positional arguments."""
    options: dict[str, str] = {}
    positional: list[str] = []
    items = iter(argv)
    for item in items:
        if item in VALUE_FLAGS:
            options[item] = next(items, "")
        elif item.startswith("--") and "=" in item:
            key, value = item.split("=", 1)
            options[key] = value
        elif item.startswith("-"):
            options[item] = ""
        else:
            positional.append(item)
    return options, positional


class Run:
    """One scripted session's progress."""

    def __init__(
        self, entry: Entry, ws: Workspace, inbox: Inbox, session_id: str, model: str
    ) -> None:
        self.entry = entry
        self.ws = ws
        self.inbox = inbox
        self.session_id = session_id
        self.model = model
        self.turns = 0
        self.totals: dict[str, int] = {}
        self.cost: float | None = None

    def turn(
        self, text: str, usage: Mapping[str, int], cost: float | None, tools: list[Any]
    ) -> None:
        """Emit one assistant message with its usage and tool calls."""
        self.turns += 1
        for key, value in usage.items():
            self.totals[key] = self.totals.get(key, 0) + value
        if cost is not None:
            self.cost = (self.cost or 0.0) + cost
        content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
        content += tools
        message = {
            "id": f"msg_{self.turns}",
            "type": "message",
            "role": "assistant",
            "model": self.model,
            "content": content,
            "usage": usage_of(dict(usage)),
        }
        emit({"type": "assistant", "message": message, "session_id": self.session_id})

    def result(
        self,
        text: str,
        *,
        error: str | None = None,
        status: int | None = None,
        subtype: str = "success",
    ) -> None:
        """Emit the final `result` event (cost only when the scenario gave one)."""
        event: dict[str, Any] = {
            "type": "result",
            "subtype": subtype,
            "is_error": error is not None or subtype != "success",
            "num_turns": self.turns,
            "result": error or text,
            "session_id": self.session_id,
            "usage": usage_of(self.totals),
            "api_error_status": status,
        }
        if self.cost is not None:
            event["total_cost_usd"] = self.cost
        emit(event)


def _steered(run: Run, wait: bool) -> bool:
    """Whether a steer arrived (waiting for one when the turn says so) and was acted on."""
    message = run.inbox.next(STEER_WAIT_SECONDS if wait else 0)
    if message is None or message is EOF or run.entry.on_steer != "handoff":
        return False
    perform(run.ws, {"handoff": run.entry.handoff})
    if run.entry.handoff_reply is not None:
        perform(run.ws, {"reply": run.entry.handoff_reply})
    run.result(f"Handed off: {run.entry.handoff}")
    return True


def _fail(run: Run, arg: object) -> int:
    spec = arg if isinstance(arg, dict) else {"kind": str(arg)}
    kind = str(spec.get("kind"))
    if kind == "hang":
        while True:
            time.sleep(3600)
    if kind == "rate-limit":
        reset = int(spec.get("reset", time.time() + 3600))
        info = {"status": "rejected", "resetsAt": reset, "rateLimitType": "five_hour"}
        emit({"type": "rate_limit_event", "rate_limit_info": info, "session_id": run.session_id})
        run.result("", error=f"Claude AI usage limit reached|{reset}", status=429)
    elif kind == "api-error":
        message = str(spec.get("message", "API Error: 529 Overloaded"))
        run.result("", error=message, status=int(spec.get("status", 529)))
    return 1


def play(run: Run, max_turns: int | None = None) -> int:
    """Play the entry's turns; the exit code the CLI would give. Past `max_turns` (claude's
    `--max-turns`) it ends as claude does: a `result` of subtype `error_max_turns`."""
    for turn in run.entry.turns:
        if max_turns is not None and run.turns >= max_turns:
            run.result("", subtype="error_max_turns")
            return 0
        tools = [
            {
                "type": "tool_use",
                "id": f"toolu_{run.turns + 1}_{i}",
                "name": tool_name(a),
                "input": tool_input(a),
            }
            for i, a in enumerate(turn.actions)
        ]
        run.turn(turn.text, turn.usage, turn.cost, tools)
        for use, action in zip(tools, turn.actions, strict=True):
            if "fail" in action:
                return _fail(run, action["fail"])
            failed, output = perform(run.ws, action)
            result: dict[str, object] = {
                "type": "tool_result",
                "tool_use_id": use["id"],
                "content": output,
            }
            if failed:
                result["is_error"] = True
            emit({"type": "user", "message": {"role": "user", "content": [result]}})
        if _steered(run, turn.await_steer):
            return 0
    run.result(run.entry.final)
    return 0


def entry_replies(entry: Entry) -> bool:
    """Whether the entry uses the MCP server at all (sessions that never reply start none)."""
    names = {name for turn in entry.turns for action in turn.actions for name in action}
    return bool(names & {"reply", "commit_tool"}) or entry.handoff_reply is not None


def _cannot_play(why: str) -> NoReturn:
    """End a session the scenario cannot play: its reason on stderr, `SCENARIO_EXIT`."""
    sys.stderr.write(f"conveyor-scripted-agent: {why}\n")
    sys.exit(SCENARIO_EXIT)


def main() -> None:
    """Entry point: stdout is stream-json, stderr says what went wrong."""
    options, positional = parse_argv(sys.argv[1:])
    if "--version" in options or "-v" in options:
        sys.stdout.write("1.0.0 (conveyor-scripted-agent, claude-compatible)\n")
        return
    if options.get("--output-format") != "stream-json":
        sys.exit("conveyor-scripted-agent: expected --output-format stream-json")
    inbox = Inbox()
    task = positional[-1] if positional else ""
    if options.get("--input-format") == "stream-json":
        first = inbox.next(None)
        task = first if isinstance(first, str) else ""
    env = dict(os.environ)
    session_dir = env.get("CONVEYOR_SESSION_DIR")
    record_env(session_dir, env)
    issue_file = env.get("CONVEYOR_ISSUE_FILE") or ""
    issue_text = task
    from_file = os.path.isfile(issue_file)
    if from_file:
        with open(issue_file) as file:
            issue_text = file.read()
    scenario = env.get("CONVEYOR_SCENARIO", "")
    try:
        entries = load(scenario)
    except ScenarioError as exc:
        _cannot_play(str(exc))
    ident = identity(env, issue_tag(issue_text, has_title=from_file))
    entry = choose(entries, ident)
    if entry is None:
        _cannot_play(
            f"no entry of the scenario file {scenario} matches this session ({describe(ident)});"
            ' add one (docs/scenarios.md, "Choosing an entry")'
        )
    mcp = options.get("--mcp-config")
    ws = Workspace(os.getcwd(), env, session_dir, mcp or None)
    if entry_replies(entry):
        try:
            ws.mcp()  # start the server now, as claude does, so its start overlaps our turns
        except McpError as exc:
            sys.stderr.write(f"conveyor-scripted-agent: {exc}\n")
    session_id = os.urandom(16).hex()
    model = options.get("--model", "scripted")
    emit({"type": "system", "subtype": "init", "session_id": session_id, "model": model})
    run = Run(entry, ws, inbox, session_id, model)
    try:
        turns = options.get("--max-turns", "")
        code = play(run, int(turns) if turns.isdigit() else None)
    finally:
        ws.close()
    sys.exit(code)
