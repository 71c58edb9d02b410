"""A test command fitted to one tree: the test files it names that the tree lacks, left out.

Only a known runner's arguments are read (`core.runner_calls`), with that runner's
grammar (`core.runners.Grammar`): a word is left out only when it is surely a
positional argument (after the program, a flag the grammar knows, a value the
grammar says its option takes, another positional or `--`), names a test path and
is missing. An option's value is never left out, nor a word after an option the
grammar does not know (it may be that option's value); a quoted or expanded word
is kept as written. A command whose runner Conveyor does not know is left as it is.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from conveyor.core.paths import matches_any
from conveyor.core.runner_calls import runner_calls
from conveyor.core.runners import Grammar
from conveyor.core.shell_words import Word

# What a test file's name ends with, for the runners whose positionals are files.
_TEST_SUFFIXES = (".py", ".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx")


def _short_cluster(value: str, grammar: Grammar) -> str:
    """How `-abc` reads: "flag", "valued" (the next word is its value) or "unknown"."""
    for index, char in enumerate(value[1:], start=1):
        option = f"-{char}"
        if option in grammar.flags:
            continue
        if option in grammar.valued:
            return "flag" if index < len(value) - 1 else "valued"
        return "unknown"
    return "flag"


def _option(value: str, grammar: Grammar) -> str:
    """How an option word reads: "flag", "valued", "many" or "unknown"."""
    if "=" in value and value.startswith("--"):
        return "flag"
    if value in grammar.many:
        return "many"
    if value in grammar.valued:
        return "valued"
    if value in grammar.flags or value.startswith("--no-"):
        return "flag"
    if not value.startswith("--") and len(value) > 2:
        return _short_cluster(value, grammar)
    return "unknown"


def _positional(args: Sequence[Word], grammar: Grammar) -> tuple[Word, ...]:
    """The words of `args` that are surely positional arguments under `grammar`.

    After an option that takes one value, the next word is that value; after one that
    takes many, or one the grammar does not know, no plain word is sure until the
    next option the grammar knows.
    """
    positional: list[Word] = []
    expect = "positional"  # or "value" (one), "unsure"
    for index, word in enumerate(args):
        value = word.value
        if expect == "rest":
            positional.append(word)
        elif value == "--":
            expect = "rest"
        elif value is not None and value.startswith("-") and value != "-":
            kind = _option(value, grammar)
            expect = {"flag": "positional", "valued": "value"}.get(kind, "unsure")
        elif expect == "value":
            expect = "positional"
        elif expect == "positional" and not (index == 0 and value in grammar.subcommands):
            positional.append(word)
    return tuple(positional)


def _test_path(value: str | None, globs: Sequence[str]) -> str | None:
    """The path a positional word names, when it is a test path (with a `::node` selection)."""
    if value is None or not value or value.startswith("/"):
        return None
    path = value.split("::", 1)[0].rstrip("/")
    if not path or any(c.isspace() or c in "*?[{" for c in path):  # a glob the runner expands
        return None
    if "::" in value or path.endswith(_TEST_SUFFIXES) or matches_any(path, globs):
        return path
    return None


def fit(command: str, exists: Callable[[str], bool], globs: Sequence[str]) -> str | None:
    """`command` without the test paths it names that `exists` says are missing.

    None when every test path it names is missing (nothing to run). Dropped words are
    cut out of the text; everything else stays exactly as written.
    """
    named = 0
    cuts: list[Word] = []
    for call in runner_calls(command):
        grammar = call.runner.grammar
        if call.moved:
            break  # after a `cd`, its paths are not the tree's
        if grammar is None or not grammar.paths:
            continue
        for word in _positional(call.args, grammar):
            path = _test_path(word.value, globs)
            if path is None or not ("/" in path or path.endswith(_TEST_SUFFIXES)):
                continue
            named += 1
            if not exists(path):
                cuts.append(word)
    if not cuts:
        return command
    if len(cuts) == named:
        return None
    out, at = [], 0
    for word in cuts:
        out.append(command[at : word.start].rstrip(" \t"))
        at = word.end
    out.append(command[at:])
    return "".join(out)
