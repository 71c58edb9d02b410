"""The stop comment's text: the control, what it checks, the reason, details, how to resume."""

from __future__ import annotations

from conveyor.core.stops import StopCode, how_to_resume


def fence(text: str) -> str:
    """`text` in a fenced block longer than any backtick run inside it, so it stays data."""
    longest, run = 0, 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}text\n{text.rstrip()}\n{ticks}"


def stop_text(
    code: StopCode,
    reason: str,
    details: str = "",
    issue: int | None = None,
    restarts: str | None = None,
) -> str:
    """The body (after the signature) of the comment a stop posts on the issue and PR (STOP-2);
    `issue` is the stopped issue's number, named in the resume command, and `restarts` where
    a restart would begin."""
    control = code.control
    parts = [
        f"### Stopped by the {control.name} control (`{code.value}`)",
        f"**What it checks:** {control.checks}",
        f"**Reason:** {reason.strip()}",
    ]
    if details.strip():
        parts.append(f"**Details:**\n\n{fence(details)}")
    parts.append(f"**How to resume:** {how_to_resume(code, issue, restarts)}")
    return "\n\n".join(parts)
