"""Which known test runners a shell command starts, and where each one's arguments are.

Each simple command (`core.shell_words.segments`) is read past what starts another
program: variable assignments, `env`, `exec`, `time`, `nice`, `timeout`, `npx`, `uv run`,
`poetry run` and the like, `node SCRIPT`, `python -m MODULE`, `coverage run -m MODULE`.
The program's last path part (or the module) names the runner (`core.runners`).
`npm test`, `npm run NAME`, `yarn NAME`, `pnpm NAME` name a package.json script, which
the caller reads and passes to `runner_calls` again (`script_names`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from conveyor.core.runners import RUNNERS, Runner
from conveyor.core.shell_words import Word, segments, split_words

_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_PYTHON = re.compile(r"^(?:python|pypy)[\d.]*$")
# Launchers: the words (option → whether it takes a value) they take before the program.
_PLAIN = frozenset({"exec", "time", "command", "nohup", "stdbuf", "xvfb-run", "bunx"})
_LAUNCHER_VALUES = {
    "env": frozenset({"-u", "--unset", "-C", "--chdir", "-S"}),
    "nice": frozenset({"-n", "--adjustment"}),
    "npx": frozenset({"-p", "--package", "-c", "--call"}),
    "timeout": frozenset({"-s", "--signal", "-k", "--kill-after"}),
}
# Tools whose subcommand runs the next word as a program (`uv run pytest`).
_RUN_VERBS = {
    "uv": "run",
    "poetry": "run",
    "pdm": "run",
    "pipenv": "run",
    "hatch": "run",
    "pnpm": "exec",
    "yarn": "exec",
    "rye": "run",
}
_PACKAGE_MANAGERS = frozenset({"npm", "yarn", "pnpm", "bun"})
_NPM_OWN = frozenset(
    {"install", "i", "ci", "add", "exec", "x", "init", "publish", "pack", "link", "audit"}
)
_MOVES = frozenset({"cd", "pushd", "popd"})
_PYTHON_FLAGS = frozenset({"-I", "-u", "-B", "-O", "-OO", "-E", "-s", "-S", "-b", "-q", "-v", "-P"})
_NODE_VALUED = frozenset({"-r", "--require", "--loader", "--import", "--experimental-loader"})


@dataclass(frozen=True)
class Call:
    """A known runner started by one simple command: its words after the program's.

    `moved`: an earlier simple command changed folder (`cd`), so its paths are not
    relative to the tree's root.
    """

    runner: Runner
    args: tuple[Word, ...]
    moved: bool = False


def _name(word: Word) -> str:
    return (word.value or "").rstrip("/").rsplit("/", 1)[-1]


def _skip_options(words: tuple[Word, ...], i: int, valued: frozenset[str]) -> int:
    while i < len(words) and (words[i].value or "").startswith("-"):
        i += 2 if words[i].value in valued else 1
    return i


def _after_launchers(words: tuple[Word, ...]) -> int:
    """The index of the program's word, past assignments and launchers."""
    i = 0
    while i < len(words):
        words[i].value or ""
        name = _name(words[i])
        if _ASSIGNMENT.match(words[i].text) or name in _PLAIN:
            i += 1
        elif name in _LAUNCHER_VALUES:
            i = _skip_options(words, i + 1, _LAUNCHER_VALUES[name])
            if name == "timeout" and i < len(words):
                i += 1  # its duration
        elif name in _RUN_VERBS and i + 1 < len(words) and words[i + 1].value == _RUN_VERBS[name]:
            i = _skip_options(words, i + 2, frozenset())
        else:
            return i
    return i


def _module_call(words: tuple[Word, ...], i: int, module: str) -> Call | None:
    for runner in RUNNERS:
        if module in runner.modules:
            return Call(runner, words[i:])
    return None


def _python_call(words: tuple[Word, ...], i: int) -> Call | None:
    """`python [options] -m MODULE args`, from the word after `python`."""
    while i < len(words):
        value = words[i].value
        if value in _PYTHON_FLAGS:
            i += 1
        elif value in ("-W", "-X"):
            i += 2
        elif value == "-m" and i + 1 < len(words):
            return _module_call(words, i + 2, words[i + 1].value or "")
        elif value is not None and value.startswith("-m") and len(value) > 2:
            return _module_call(words, i + 1, value[2:])
        else:
            return None
    return None


def _segment_call(words: tuple[Word, ...]) -> Call | None:
    i = _after_launchers(words)
    if i >= len(words):
        return None
    name = _name(words[i])
    if _PYTHON.match(name):
        return _python_call(words, i + 1)
    if name == "coverage" and i + 1 < len(words) and words[i + 1].value == "run":
        j = _skip_options(words, i + 2, frozenset({"--source", "--rcfile", "--omit"}))
        if j + 1 < len(words) and words[j].value == "-m":
            return _module_call(words, j + 2, words[j + 1].value or "")
        return None
    if name == "node":
        i = _skip_options(words, i + 1, _NODE_VALUED)
        if i >= len(words):
            return None
        name = _name(words[i])
    for runner in RUNNERS:
        if name in runner.programs:
            return _verb_call(runner, words, i + 1)
    return None


def _verb_call(runner: Runner, words: tuple[Word, ...], i: int) -> Call | None:
    if not runner.verbs:
        return Call(runner, words[i:])
    i = _skip_options(words, i, frozenset({"-C", "--manifest-path", "--package", "-p"}))
    if i < len(words) and words[i].value in runner.verbs:
        return Call(runner, words[i + 1 :])
    return None


def runner_calls(command: str) -> tuple[Call, ...]:
    """Every known runner the command starts, in order."""
    found: list[Call] = []
    moved = False
    for words in segments(split_words(command)):
        at = _after_launchers(words)
        moved = moved or (at < len(words) and _name(words[at]) in _MOVES)
        call = _segment_call(words)
        if call is not None:
            found.append(replace(call, moved=moved))
    return tuple(found)


def script_names(command: str) -> tuple[str, ...]:
    """The package.json scripts the command runs (`npm test` → `test`), in order."""
    found: list[str] = []
    for words in segments(split_words(command)):
        i = _after_launchers(words)
        if i >= len(words) or _name(words[i]) not in _PACKAGE_MANAGERS:
            continue
        rest = [w.value for w in words[i + 1 :] if w.value is not None]
        rest = [v for v in rest if not v.startswith("-")]
        if not rest or rest[0] in _NPM_OWN:
            continue
        if rest[0] in ("run", "run-script") and len(rest) > 1:
            found.append(rest[1])
        elif rest[0] in ("test", "t", "tst"):
            found.append("test")
        elif _name(words[i]) != "npm":  # `yarn test`, `pnpm unit`: a script by its name
            found.append(rest[0])
    return tuple(found)
