"""Markdown to safe HTML for the forge's pages: raw HTML off, hidden comments hidden.

Comments, bodies and titles are written by anyone, so nothing a person wrote
may become markup: markdown-it renders with `html` off (every `<` a person
typed comes out escaped) and refuses `javascript:` links. Before rendering,
HTML comments (`<!-- ... -->`, which hold the pipeline's markers and its state
blob) are taken out, as GitHub hides them. One exception is given back after
rendering: a paragraph that is exactly `<details><summary>TEXT</summary>` or
`</details>` (the pipeline's handoff notes fold that way) becomes the element;
TEXT stays escaped and no attribute can ride along.
"""

from __future__ import annotations

import re
from functools import cache

from markdown_it import MarkdownIt

_HIDDEN = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
_OPEN_DETAILS = re.compile(
    r"<p>&lt;details&gt;\s*&lt;summary&gt;(?P<summary>(?:(?!&lt;).)*)&lt;/summary&gt;</p>"
)
_CLOSE_DETAILS = "<p>&lt;/details&gt;</p>"


@cache
def _renderer() -> MarkdownIt:
    options = {"html": False, "linkify": False, "typographer": False}
    return MarkdownIt("commonmark", options).enable(["table", "strikethrough"])


def strip_hidden(text: str) -> str:
    """The text without its HTML comments (an unclosed one hides the rest, as on GitHub)."""
    return _HIDDEN.sub("", text)


def render_markdown(text: str) -> str:
    """Safe HTML for markdown a person (or the pipeline) wrote."""
    html = _renderer().render(strip_hidden(text))
    opened = 0

    def _open(match: re.Match[str]) -> str:
        nonlocal opened
        opened += 1
        return f"<details><summary>{match['summary']}</summary>"

    html = _OPEN_DETAILS.sub(_open, html)
    closes = html.count(_CLOSE_DETAILS)
    html = html.replace(_CLOSE_DETAILS, "</details>", min(opened, closes))
    return html + "</details>" * max(0, opened - closes)
