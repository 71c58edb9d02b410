"""Signs in a run's output that the machine lacks something: never the tests, never the change.

Read only where a run reported no test results (a crash, a command that is not a known
runner whose failures are unknown): a folder the run cannot write (the box's
read-only paths), the network (a registry, a module proxy), a full disk, a toolchain
or dependency that is not installed (`sh: 1: cargo: not found`, a JavaScript package
that cannot be found, a missing Go or Rust dependency). Such a run is an environment
error that is charged to no session, whatever the base shows.
"""

from __future__ import annotations

import re

from conveyor.core.run_output import plain_text

_SIGNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(r"Read-only file system|\bEROFS\b"),
        "a folder the command writes is read-only here",
    ),
    (
        re.compile(r"No space left on device|\bENOSPC\b"),
        "the disk is full",
    ),
    (
        re.compile(
            r"getaddrinfo (?:ENOTFOUND|EAI_AGAIN)|Could not resolve host|Temporary failure in "
            r"name resolution|Network is unreachable|dial tcp: lookup |Couldn't resolve host name"
        ),
        "the command needs the network, which it does not have here",
    ),
    (
        re.compile(
            r"no required module provides package |missing go\.sum entry|"
            r"no matching package named `[^`]+` found|failed to get `[^`]+` as a dependency|"
            r"failed to (?:load|download) source for dependency"
        ),
        "a dependency is not installed (setup did not fetch it)",
    ),
    (
        re.compile(
            r"No CMAKE_\w+_COMPILER could be found|Could NOT find \w+|"
            r"rustup could not choose a version|toolchain '[^']+' is not installed"
        ),
        "a toolchain or library the build needs is not installed",
    ),
)
# `sh: 1: cargo: not found`, `bash: go: command not found`, `env: 'node': No such file…`.
_NOT_FOUND = re.compile(
    r"^(?:/bin/)?(?:ba|da)?sh: (?:\d+: |line \d+: )?([^\s:]+): (?:command )?not found$|"
    r"^(?:/usr/bin/)?env: [‘'\"]?([^\s'’\"]+)[’'\"]?: No such file or directory$|"
    r"^make(?:\[\d+\])?: ([^\s:]+): (?:Command not found|No such file or directory)$",
    re.MULTILINE,
)
# `Error: Cannot find module 'chai'` (node's require), `Cannot find package 'x' imported from`.
_NODE_PACKAGE = re.compile(
    r"Cannot find (?:module|package) '((?:@[\w.-]+/)?[\w.-]+)(?:/[^']*)?'(?! from ')"
)


def _missing_program(text: str) -> str:
    """The program a shell or make could not find, when it is no file of the tree's own."""
    for match in _NOT_FOUND.finditer(text):
        program = next(g for g in match.groups() if g)
        if "/" not in program or "node_modules/" in program:
            return program
    return ""


def machine_sign(output: str) -> str:
    """What the machine lacks, as the output shows it; "" when it shows nothing of the kind."""
    text = plain_text(output)
    for pattern, why in _SIGNS:
        match = pattern.search(text)
        if match is not None:
            return f"{why} ({match.group(0).strip()})"
    program = _missing_program(text)
    if program:
        return f"`{program}` is not installed here (a toolchain or dependency is missing)"
    package = _NODE_PACKAGE.search(text)
    if package is not None and not package.group(1).startswith("."):
        return f"the JavaScript package `{package.group(1)}` is not installed"
    return ""
