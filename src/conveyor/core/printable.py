"""Text from the forge made safe to show a person on a terminal or a page (pure).

Anyone can write an issue's title, body or comment, and what they write reaches
`conveyor status`, the live view, the demo's table, the transcripts and the forge's
pages. Control characters there are orders to the terminal (a bell, a cursor move,
an escape sequence that repaints the screen or sets its title); a NUL can cut a
line short; a bidirectional override (U+202E) makes `evil.exe` read as `exe.live`
and mirrors a page's heading. Every such character is shown as its escape
(`\\x07`, `\\u202e`), so a person sees that it was there and nothing acts on it.

One function, applied where text leaves the program: the CLI's output
(`cli/screen.py`), the live view's panel, the forge's pages (`emulator.web.layout.page`).
"""

from __future__ import annotations

import re

# The bidirectional formatting characters: marks, embeddings, overrides and isolates.
BIDI_CONTROLS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
# C0 controls but newline and tab, DEL and the C1 controls (Unicode's Cc); the line and
# paragraph separators (some terminals and pages break lines on them); lone surrogates
# (JSON allows one, no terminal encoding does: printing it would crash the command).
_ALWAYS = "\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff" + BIDI_CONTROLS
_IN_BLOCKS = re.compile(f"[{_ALWAYS}]")
_IN_LINES = re.compile(f"[{_ALWAYS}\n\t]")


_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(found: re.Match[str]) -> str:
    char = found.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str, *, one_line: bool = False) -> str:
    """`text` with every control, bidi and separator character shown as its escape.

    Newlines and tabs are kept, unless `one_line` (a table row, a title, an event
    line): then they are escaped too, so one value can never forge a second line.
    A CRLF pair is a newline. Everything else (letters of every script, emoji with
    their joiners, zero-width characters that order nothing) is left as it was.
    """
    if text.isprintable():
        return text
    if one_line:
        return _IN_LINES.sub(_escape, text)
    return _IN_BLOCKS.sub(_escape, text.replace("\r\n", "\n"))
