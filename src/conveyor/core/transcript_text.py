"""A session's transcript as terminal lines, drawn like the agent CLIs draw their own (pure).

`●` a message, `✻` thinking, `⏺ Tool(arguments)` a call and `⎿` under it its result
(`✗` when it failed), `!` an error; long texts are cut by `transcript.cut` with a line
saying how much was left out. A heading names the session, a last line its totals.
"""

from __future__ import annotations

from conveyor.core.transcript import Entry, SessionTranscript, Totals, cut, totals_line

_MARKS = {"text": "●", "thinking": "✻", "task": "▸", "error": "!"}


def heading(session: SessionTranscript) -> str:
    """`── implement · claude claude-sonnet-4-5 · succeeded · 2026-12-04 12:00 · job …`."""
    ended = f" · {session.ended_at[:16].replace('T', ' ')}" if session.ended_at else ""
    where = f"{session.key} · {session.backend} {session.model} · {session.status}{ended}"
    return f"── {where} · job {session.job}"


def _block(first: str, rest: str, text: str) -> list[str]:
    lines = text.split("\n")
    return [first + lines[0], *(rest + line for line in lines[1:])]


def entry_lines(entry: Entry) -> list[str]:
    """One entry's lines (a turn's end with no cost draws nothing)."""
    if entry.kind == "turn":
        return [f"  · turn ended {entry.text}".rstrip()] if entry.text else []
    shown, left = cut(entry.text, entry.kind)
    if entry.kind == "call":
        lines = _block(f"⏺ {entry.name}(", "  ", shown)
        lines[-1] += ")"
    elif entry.kind == "result":
        lines = _block("  ⎿  " + ("✗ " if entry.failed else ""), "     ", shown or "(no output)")
    else:
        lines = _block(f"{_MARKS[entry.kind]} ", "  ", shown)
    if left:
        lines.append(f"     … {left} more line{'s' if left != 1 else ''}")
    return lines


def session_lines(session: SessionTranscript) -> list[str]:
    """The heading, every entry, the totals, and the error the session ended on."""
    out = [heading(session)]
    for entry in session.entries:
        out.extend(entry_lines(entry))
    out.append("── " + totals_line(session.totals))
    if session.totals.error:
        out.append(f"── ended on: {session.totals.error}")
    return out


def counted(totals: Totals, entries: tuple[Entry, ...]) -> Totals:
    """`totals` with the turns, tool calls and failures counted from `entries`."""
    calls = [e for e in entries if e.kind == "call"]
    failures = [e for e in entries if e.kind == "result" and e.failed]
    turns = sum(1 for e in entries if e.kind == "turn")
    return Totals(
        **{
            **totals.__dict__,
            "turns": totals.turns or turns,
            "tool_calls": len(calls),
            "tool_failures": len(failures),
        }
    )
