"""The three stream parsers over the CLIs' recorded streams."""

from __future__ import annotations

from pathlib import Path

from conveyor.agents.backends.base import StreamParser
from conveyor.agents.backends.claude import ClaudeParser
from conveyor.agents.backends.codex import CodexParser
from conveyor.agents.backends.opencode import OpencodeParser
from conveyor.core.session import Usage

STREAMS = Path(__file__).resolve().parents[2] / "data" / "agent-streams"


def replay(parser: StreamParser, name: str) -> list[int]:
    """Feed a recorded stream; returns the turn contexts the parser reported."""
    seen = []
    for line in (STREAMS / name).read_text().splitlines():
        context = parser.feed(line)
        if context is not None:
            seen.append(context)
    return seen


def test_claude_bash_stream_gives_usage_cost_turns_and_final_text() -> None:
    """Two assistant messages (one repeated per block) are two turns; the result sets totals."""
    parser = ClaudeParser()
    contexts = replay(parser, "claude-2.1.332_mock_bash.jsonl")
    state = parser.state
    assert contexts == [10, 10]
    assert state.usage == Usage(input=20, output=24)
    assert state.cost_usd == 0.00042
    assert state.session_id == "99d78a86-1009-4755-99a4-1fba8b09fad5"
    assert state.final_text == "done: saw hello-from-tool"
    assert state.ended
    assert state.error is None
    assert (state.tool_calls, state.tool_failures) == (1, 0)


def test_claude_mcp_stream_counts_the_submit_reply_call() -> None:
    """The MCP tool call is a tool call; the session ends cleanly."""
    parser = ClaudeParser()
    replay(parser, "claude-mcp-tool.stream.jsonl")
    assert parser.state.tool_calls == 1
    assert parser.state.ended
    assert parser.state.usage.input == 200


def test_claude_json_schema_stream_parses_without_errors() -> None:
    """A structured-output run parses to one turn and a final event."""
    parser = ClaudeParser()
    assert replay(parser, "claude-json-schema.stream.jsonl") == [100]
    assert parser.state.ended
    assert parser.state.unparsed == 0


def test_a_failed_claude_tool_result_is_recorded_with_its_tool_name() -> None:
    """A tool result with is_error counts as a tool failure naming the tool."""
    parser = ClaudeParser()
    parser.feed(
        '{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"t1",'
        '"name":"Bash","input":{}}],"usage":{"input_tokens":5}}}'
    )
    parser.feed(
        '{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1",'
        '"content":"boom","is_error":true}]}}'
    )
    assert parser.state.tool_failures == 1
    assert parser.state.last_tool_failure == "Bash: boom"


def test_claude_context_counts_input_cache_read_and_cache_write() -> None:
    """CTX-2: a turn's context is input + cache read + cache write, not output."""
    parser = ClaudeParser()
    context = parser.feed(
        '{"type":"assistant","message":{"id":"m1","content":[],"usage":{"input_tokens":10,'
        '"cache_read_input_tokens":1000,"cache_creation_input_tokens":200,"output_tokens":50}}}'
    )
    assert context == 1210


def test_a_blocking_rate_limit_event_is_reported_with_its_reset_time() -> None:
    """A rejected rate_limit_event marks the session rate limited until resetsAt."""
    parser = ClaudeParser()
    parser.feed(
        '{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":1800000000}}'
    )
    assert parser.state.rate_limited
    assert parser.state.rate_limit_reset == 1800000000.0


def test_an_api_error_result_is_an_error_carrying_the_clis_message() -> None:
    """A result with is_error keeps the CLI's text (a model the CLI rejects, for one)."""
    parser = ClaudeParser()
    parser.feed(
        '{"type":"result","subtype":"success","is_error":true,'
        '"result":"model not found: claude-nope","api_error_status":404}'
    )
    assert parser.state.error is not None
    assert "model not found: claude-nope" in parser.state.error
    assert not parser.state.rate_limited


def test_unparseable_lines_are_counted_and_never_fatal() -> None:
    """Garbage, JSON that is not an object, and blank lines do not stop parsing."""
    for parser in (ClaudeParser(), CodexParser(), OpencodeParser()):
        for line in ("not json", "[1, 2]", "", "{truncated"):
            assert parser.feed(line) is None
        assert parser.state.unparsed == 3


def test_codex_stream_splits_cached_input_and_reports_no_cost() -> None:
    """Codex's input includes its cached tokens: they become cache reads; cost stays unknown."""
    parser = CodexParser()
    contexts = replay(parser, "codex-mcp-tool.jsonl")
    state = parser.state
    assert contexts == [200]
    assert state.usage == Usage(input=180, output=14, cache_read=20)
    assert state.cost_usd is None
    assert state.session_id == "01a228a0-5708-7e20-943c-f3d535ecf3a2"
    assert state.final_text == "All done."
    assert state.ended
    assert state.tool_calls == 1


def test_codex_command_stream_counts_the_shell_call_and_ignores_the_metadata_warning() -> None:
    """The model-metadata warning item is not an error; the command is one tool call."""
    parser = CodexParser()
    replay(parser, "codex-0.171.0_mock_exec_command.jsonl")
    assert parser.state.error is None
    assert (parser.state.tool_calls, parser.state.tool_failures) == (1, 0)
    assert parser.state.final_text == "done: saw hello-from-tool"


def test_codex_output_schema_stream_keeps_the_json_final_message() -> None:
    """The final agent message is kept as the final text."""
    parser = CodexParser()
    replay(parser, "codex-output-schema.jsonl")
    assert parser.state.final_text == '{"verdict":"approve","summary":"ok"}'


def test_a_codex_turn_failure_is_an_error_and_a_usage_limit_is_a_rate_limit() -> None:
    """turn.failed ends the stream with its message; a usage-limit text marks a rate limit."""
    parser = CodexParser()
    parser.feed('{"type":"turn.failed","error":{"message":"You have hit your usage limit"}}')
    assert parser.state.ended
    assert parser.state.rate_limited


def test_opencode_stream_sums_steps_with_cost_and_ends_on_stop() -> None:
    """Each step_finish is a turn with tokens and cost; the last one ends the session."""
    parser = OpencodeParser()
    contexts = replay(parser, "opencode-1.18.33_mock_bash.jsonl")
    state = parser.state
    assert contexts == [10, 10]
    assert state.usage == Usage(input=20, output=24)
    assert state.cost_usd is not None
    assert abs(state.cost_usd - 0.00042) < 1e-9
    assert state.session_id == "ses_dd75c467cffezO693vb21cIclm"
    assert state.final_text == "done: saw hello-from-tool"
    assert state.ended
    assert state.tool_calls == 1


def test_opencode_mcp_stream_counts_the_submit_reply_call() -> None:
    """The `conveyor_submit_reply`-style tool part is a tool call."""
    parser = OpencodeParser()
    replay(parser, "opencode-mcp-tool.jsonl")
    assert parser.state.tool_calls == 1
    assert parser.state.turns == 2


def test_a_claude_session_cut_by_its_turn_cap_is_no_api_error() -> None:
    """`error_max_turns` is the role's `max_turns` spent: no error (which would count as the
    provider's trouble and pause the agent), its last words say why."""
    parser = ClaudeParser()
    parser.feed(
        '{"type":"result","subtype":"error_max_turns","is_error":true,"num_turns":3,'
        '"usage":{"input_tokens":10,"output_tokens":2}}'
    )
    assert parser.state.ended
    assert parser.state.error is None
    assert "max_turns" in (parser.state.final_text or "")
