"""Where the CLI's output reaches a terminal: every line through `core.printable`.

Forge text (titles, stop reasons quoting them, findings, transcripts) is written
by anyone, so the commands that show it print through here: `say_lines` for text
lines (each one line: a title's newline can never forge a row of its own), and
`Printable` around a rich renderable (the live view's panel), which escapes the
text of every segment rich draws and passes its own control codes (colours,
cursor moves) through.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

import typer

from conveyor.core.printable import printable

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions, RenderableType
    from rich.segment import Segment


def say(line: str, *, err: bool = False) -> None:
    """Print one line, its control and bidi characters escaped."""
    typer.echo(printable(line, one_line=True), err=err)


def say_lines(lines: Iterable[str], *, err: bool = False) -> None:
    """Print each of `lines` as one line, escaped (one write: a pipe reads them whole)."""
    typer.echo("\n".join(printable(line, one_line=True) for line in lines), err=err)


class Printable:
    """A rich renderable whose text, as drawn, has its control and bidi characters escaped."""

    def __init__(self, inner: RenderableType) -> None:
        self.inner = inner

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[Segment]:
        """The inner renderable's segments, each text escaped (newlines kept)."""
        from rich.segment import Segment

        for segment in console.render(self.inner, options):
            if segment.control or segment.text.isprintable():
                yield segment
            else:
                yield Segment(printable(segment.text), segment.style)
