"""The forge pages' markdown: rendered, with raw HTML escaped and hidden comments gone."""

from __future__ import annotations

from conveyor.emulator.web.markdown import render_markdown


def test_markdown_renders_while_raw_html_stays_text() -> None:
    """Emphasis and tables become markup; a script tag and an event handler stay text."""
    html = render_markdown(
        "**bold** <script>x()</script>\n\n| a |\n|---|\n| b |\n\n<img onerror=y>"
    )
    assert "<strong>bold</strong>" in html
    assert "<table>" in html
    assert "<script>" not in html
    assert "<img" not in html
    assert "&lt;script&gt;x()&lt;/script&gt;" in html


def test_hidden_comments_are_removed_and_an_unclosed_one_hides_the_rest() -> None:
    """As on GitHub: `<!-- ... -->` never shows; text after an unclosed `<!--` neither."""
    html = render_markdown("seen <!-- SECRET --> too\n\nmore <!-- open\nSTILL-HIDDEN")
    assert "SECRET" not in html
    assert "STILL-HIDDEN" not in html
    assert "seen  too" in html


def test_a_details_fold_opens_and_closes_but_carries_no_attributes() -> None:
    """The handoff notes fold; a summary cannot smuggle an attribute in."""
    html = render_markdown('<details><summary>a" onclick="b</summary>\n\ninside\n\n</details>')
    assert html.startswith("<details><summary>a&quot; onclick=&quot;b</summary>")
    assert html.rstrip().endswith("</details>")
    assert 'onclick="' not in html
    unclosed = render_markdown("<details><summary>s</summary>\n\nbody")
    assert unclosed.count("<details>") == unclosed.count("</details>") == 1


def test_a_javascript_link_is_not_a_link() -> None:
    """markdown-it refuses `javascript:` targets."""
    assert "href" not in render_markdown("[x](javascript:alert(1))")
