"""A shell command split into words as `sh` would, each with its place in the text.

Only as much of the shell's grammar as reading a test command needs: quotes (`'…'`,
`"…"`, `\\x`), control operators (`&&`, `||`, `;`, `|`, `&`, parentheses, newlines),
redirections and comments. A word with an expansion (`$…`, a backquote, a glob the
shell would expand) has no known value: it is kept as written and never read as a
path. Commands are split at control operators into simple commands (`segments`).
"""

from __future__ import annotations

from dataclasses import dataclass

_OPERATORS = ("&&", "||", ";;", ";", "|", "&", "(", ")", "\n")
_EXPANSIONS = frozenset("$`*?[{~")
_REDIRECT_CHARS = frozenset("<>")


@dataclass(frozen=True)
class Word:
    """One word: where it is in the command, and its value when the shell's is known.

    `text` is the word as written; `value` is None for a word with an expansion.
    `operator` is a control operator; `redirect` a redirection (`>out`, `2>&1`, or the
    word after a lone `>`).
    """

    start: int
    end: int
    text: str
    value: str | None
    operator: bool = False
    redirect: bool = False


def _quoted(command: str, i: int) -> tuple[int, str, bool]:
    """The end of the quoted part starting at `i`, its value, and whether it expands."""
    quote = command[i]
    j = i + 1
    out: list[str] = []
    expands = False
    while j < len(command) and command[j] != quote:
        char = command[j]
        if quote == '"' and char == "\\" and j + 1 < len(command):
            out.append(command[j + 1])
            j += 2
            continue
        expands = expands or (quote == '"' and char in "$`")
        out.append(char)
        j += 1
    return min(j + 1, len(command)), "".join(out), expands


def _word(command: str, i: int) -> tuple[int, str | None, bool]:
    """The word starting at `i`: its end, its value (None: it expands) and whether it redirects."""
    out: list[str] = []
    expands = redirect = False
    j = i
    while j < len(command):
        char = command[j]
        ends = char.isspace() or any(command.startswith(op, j) for op in _OPERATORS)
        if ends and not (char == "&" and out and out[-1] in "<>"):  # `2>&1` goes on
            break
        if char in "'\"":
            j, text, inner = _quoted(command, j)
            out.append(text)
            expands = expands or inner
            continue
        if char == "\\" and j + 1 < len(command):
            out.append(command[j + 1])
            j += 2
            continue
        expands = expands or char in _EXPANSIONS
        redirect = redirect or char in _REDIRECT_CHARS
        out.append(char)
        j += 1
    return j, None if expands else "".join(out), redirect


def split_words(command: str) -> tuple[Word, ...]:
    """The command's words and operators in order (a `#` comment ends its line)."""
    words: list[Word] = []
    i = 0
    target = False  # the word after a lone redirection operator is its target
    while i < len(command):
        if command[i] in " \t\r":
            i += 1
            continue
        if command[i] == "#" and (i == 0 or command[i - 1].isspace()):
            end = command.find("\n", i)
            i = len(command) if end == -1 else end
            continue
        operator = next((op for op in _OPERATORS if command.startswith(op, i)), None)
        if operator is not None:
            words.append(Word(i, i + len(operator), operator, operator, operator=True))
            i += len(operator)
            continue
        end, value, redirect = _word(command, i)
        text = command[i:end]
        lone = redirect and text.strip("0123456789&").rstrip("|") in ("<", ">", ">>", "<<", "<>")
        words.append(Word(i, end, text, value, redirect=redirect or target))
        target = lone
        i = end
    return tuple(words)


def segments(words: tuple[Word, ...]) -> tuple[tuple[Word, ...], ...]:
    """The simple commands: the words between control operators, redirections left out."""
    out: list[tuple[Word, ...]] = []
    current: list[Word] = []
    for word in words:
        if word.operator:
            if current:
                out.append(tuple(current))
            current = []
        elif not word.redirect:
            current.append(word)
    if current:
        out.append(tuple(current))
    return tuple(out)
