"""Import errors in test failures, and whether the change under test could have caused them.

A test that fails because `ModuleNotFoundError: No module named 'pkg._version'` was
raised in `pkg/__init__.py` says nothing about the change when the change touched
neither `pkg/__init__.py` nor `pkg/_version.py`: the environment lacks something (a
file setup generates, a dependency). That is an environment error, never the agent's
failure (issue 31). The file an import failed in is the last frame of the traceback
that lies in the tree (pytest's `path:line:` locations or Python's `File "path"`).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Collection
from dataclasses import dataclass

_ERROR = re.compile(r"\b(ModuleNotFoundError|ImportError): (.+)")
_NO_MODULE = re.compile(r"No module named '([\w.]+)'")
_NO_NAME = re.compile(r"cannot import name '\w+' from '([\w.]+)'(?: \((.+?)\))?")
_PYTEST_FRAME = re.compile(r"^(\S+?\.pyx?):\d+: ", re.MULTILINE)
_NATIVE_FRAME = re.compile(r'^\s*File "(.+?)", line \d+', re.MULTILINE)


@dataclass(frozen=True)
class ImportFailure:
    """A failing test's import error: the error line, the module it is about, where it rose.

    `module_file` is the file the error names (`cannot import name … (path)`), and
    `raised_in` the tree's file whose import failed; "" when not known. Paths are
    relative to the tree.
    """

    test_id: str
    error: str
    module: str
    module_file: str = ""
    raised_in: str = ""

    def describe(self) -> str:
        """The failure as people read it."""
        where = f" (raised in {self.raised_in})" if self.raised_in else ""
        return f"{self.test_id}: {self.error}{where}"


def _in_tree(path: str, root: str) -> str | None:
    """`path` relative to the tree at `root`, or None when it lies outside it."""
    if path.startswith("<"):
        return None
    if posixpath.isabs(path):
        top = root.rstrip("/") + "/"
        return posixpath.normpath(path[len(top) :]) if root and path.startswith(top) else None
    normal = posixpath.normpath(path)
    return None if normal.startswith("../") else normal


def _raised_in(text: str, root: str) -> str:
    frames = [(m.start(), m.group(1)) for m in _PYTEST_FRAME.finditer(text)]
    frames += [(m.start(), m.group(1)) for m in _NATIVE_FRAME.finditer(text)]
    inside = [rel for _, path in sorted(frames) if (rel := _in_tree(path, root)) is not None]
    return inside[-1] if inside else ""


def _errors(message: str, text: str) -> list[str]:
    """The import error lines to read, best first: the message's, then the details' last.

    The last one in a traceback is the error that rose (unittest's loader puts its own
    `ImportError: Failed to import test module` first); a message may lack the type.
    """
    found = [f"{m.group(1)}: {m.group(2).strip()}" for m in _ERROR.finditer(message)]
    if not found and _NO_MODULE.match(message.strip()):
        found.append(f"ModuleNotFoundError: {message.strip()}")
    found += [f"{m.group(1)}: {m.group(2).strip()}" for m in reversed(list(_ERROR.finditer(text)))]
    return found


def import_failure(test_id: str, message: str, text: str, root: str) -> ImportFailure | None:
    """The import error a failing test shows (its message, else its details), if any."""
    for error in _errors(message, text):
        missing = _NO_MODULE.search(error)
        unnamed = _NO_NAME.search(error)
        if missing is not None:
            module, module_file = missing.group(1), ""
        elif unnamed is not None:
            module, named = unnamed.group(1), unnamed.group(2)
            module_file = (_in_tree(named, root) or "") if named else ""
        else:
            continue
        return ImportFailure(test_id, error, module, module_file, _raised_in(text, root))
    return None


def _module_touched(failure: ImportFailure, changed: Collection[str]) -> bool:
    named = failure.module_file
    # A JavaScript module's file is named without its suffix (`lib/calc` is `lib/calc.js`).
    if named and any(p == named or p.startswith((f"{named}.", f"{named}/index.")) for p in changed):
        return True
    stem = failure.module.replace(".", "/")
    ends = (f"{stem}.py", f"{stem}/__init__.py", f"{stem}.pyi")
    return any(p == end or p.endswith(f"/{end}") for p in changed for end in ends)


def not_the_change(failure: ImportFailure, changed: Collection[str]) -> bool:
    """Whether the change cannot have caused the import error.

    True when it rose in a file of the tree the change did not touch, about a module
    the change did not touch. Where it rose unknown, the change may have caused it.
    """
    if not failure.raised_in or failure.raised_in in changed:
        return False
    return not _module_touched(failure, changed)
