"""Named cases for type-only and comments-only Python changes."""

from __future__ import annotations

import pytest

from conveyor.core.typeonly import comments_and_docstrings_only, type_only

TYPE_ONLY = {
    "argument and return annotations": (
        "def f(x):\n    return x\n",
        "def f(x: int) -> int:\n    return x\n",
    ),
    "a changed annotation": (
        "def f(x: int) -> int:\n    return x\n",
        "def f(x: str) -> str:\n    return x\n",
    ),
    "an annotated assignment with a value": ("x = 1\n", "x: int = 1\n"),
    "an annotation without a value": ("x = 1\n", "x = 1\ny: str\n"),
    "a new docstring": ("def f():\n    return 1\n", 'def f():\n    """Say one."""\n    return 1\n'),
    "a TYPE_CHECKING block": (
        "x = 1\n",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import os\nx = 1\n",
    ),
    "an import used only in annotations": (
        "def f(x):\n    return x\n",
        "from collections.abc import Sequence\ndef f(x: Sequence[int]) -> int:\n    return x\n",
    ),
    "a new Protocol class": (
        "x = 1\n",
        "from typing import Protocol\nx = 1\n"
        "class Greeter(Protocol):\n    def greet(self) -> str: ...\n",
    ),
    "a new TypedDict class": (
        "x = 1\n",
        "from typing import TypedDict\nclass Row(TypedDict):\n    name: str\nx = 1\n",
    ),
    "new overload stubs": (
        "def f(x):\n    return x\n",
        "from typing import overload\n@overload\ndef f(x: int) -> int: ...\n"
        "@overload\ndef f(x: str) -> str: ...\ndef f(x):\n    return x\n",
    ),
    "a stub member added to an existing Protocol": (
        "from typing import Protocol\nclass P(Protocol):\n    def a(self) -> int: ...\n",
        "from typing import Protocol\nclass P(Protocol):\n    def a(self) -> int: ...\n"
        "    def b(self, n: int) -> str:\n        raise NotImplementedError\n",
    ),
    "a new field of an existing TypedDict": (
        "from typing import TypedDict\nclass Row(TypedDict):\n    name: str\n",
        "from typing import TypedDict\nclass Row(TypedDict):\n    name: str\n    age: int\n",
    ),
    "from __future__ import annotations": (
        "x = 1\n",
        "from __future__ import annotations\nx = 1\n",
    ),
    "a new TypeVar": ("x = 1\n", "from typing import TypeVar\nT = TypeVar('T')\nx = 1\n"),
    "a changed class field annotation": (
        "class A:\n    x: int = 1\n    y: int\n",
        "class A:\n    x: float = 1\n    y: str\n",
    ),
    "a TYPE_CHECKING block with a runtime else": (
        "Path = None\n",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pathlib import Path\n"
        "else:\n    Path = None\n",
    ),
    "an unchanged module": ("x = 1\n", "x = 1\n"),
    "a new file with only a Protocol": (
        "",
        "from typing import Protocol\nclass P(Protocol):\n    def a(self) -> int: ...\n",
    ),
}

NOT_TYPE_ONLY = {
    "a changed constant": ("x = 1\n", "x = 2\n"),
    "a new dataclass field": (
        "@dataclass\nclass A:\n    x: int\n",
        "@dataclass\nclass A:\n    x: int\n    y: str\n",
    ),
    "a class attribute that becomes a field": (
        "class A:\n    x = 1\n",
        "class A:\n    x: int = 1\n",
    ),
    "a TYPE_CHECKING else branch that changed": (
        "if TYPE_CHECKING:\n    import a\nelse:\n    a = 1\n",
        "if TYPE_CHECKING:\n    import a\nelse:\n    a = 2\n",
    ),
    "a new function": ("x = 1\n", "x = 1\ndef f():\n    return 1\n"),
    "a new plain class": ("x = 1\n", "x = 1\nclass A:\n    pass\n"),
    "a new import used nowhere": ("x = 1\n", "import os\nx = 1\n"),
    "an import used at run time and in annotations": (
        "x = 1\n",
        "from pathlib import Path\ndef f(p: Path) -> Path:\n    return Path(p)\nx = 1\n",
    ),
    "a changed Protocol member with a real body": (
        "from typing import Protocol\nclass P(Protocol):\n    def a(self):\n        return 1\n",
        "from typing import Protocol\nclass P(Protocol):\n    def a(self):\n        return 2\n",
    ),
    "an overload with a real body": (
        "x = 1\n",
        "from typing import overload\n@overload\ndef f(x: int) -> int:\n    return x\nx = 1\n",
    ),
    "a removed function": ("def f():\n    return 1\nx = 1\n", "x = 1\n"),
    "a changed default": (
        "def f(x=1):\n    return x\n",
        "def f(x: int = 2) -> int:\n    return x\n",
    ),
    "a changed annotated value": ("x: int = 1\n", "x: int = 2\n"),
    "a stub body outside a Protocol": (
        "def f():\n    return 1\n",
        "def f():\n    raise NotImplementedError\n",
    ),
}


@pytest.mark.parametrize(("old", "new"), TYPE_ONLY.values(), ids=TYPE_ONLY.keys())
def test_type_level_changes_are_type_only(old: str, new: str) -> None:
    """Annotations, docstrings, type-only imports, stubs and new type classes are type-only."""
    verdict = type_only(old, new)
    assert verdict.ok, verdict.reason


@pytest.mark.parametrize(("old", "new"), NOT_TYPE_ONLY.values(), ids=NOT_TYPE_ONLY.keys())
def test_runtime_changes_are_not_type_only(old: str, new: str) -> None:
    """Anything that changes what runs is not type-only, and the verdict says so."""
    verdict = type_only(old, new)
    assert not verdict.ok
    assert "runtime" in verdict.reason


def test_unparseable_new_source_is_not_type_only_and_says_which_version() -> None:
    """A syntax error gives a verdict naming the version and line, never an exception."""
    verdict = type_only("x = 1\n", "x = 1\ndef f(:\n")
    assert not verdict.ok
    assert "new version does not parse" in verdict.reason
    assert "line 2" in verdict.reason


def test_unparseable_old_source_is_not_type_only() -> None:
    """A broken old version is reported as such."""
    verdict = type_only("x = (\n", "x = 1\n")
    assert not verdict.ok
    assert "old version does not parse" in verdict.reason


def test_null_bytes_are_reported_as_unparseable() -> None:
    """Source with a NUL byte is a verdict, not a crash."""
    assert not type_only("x = 1\n", "x = 1\0\n").ok


COMMENTS_ONLY = {
    "a new comment": ("x = 1\n", "# one\nx = 1  # still one\n"),
    "a changed docstring": ('"""Old."""\nx = 1\n', '"""New, longer."""\nx = 1\n'),
    "a docstring replacing pass": ("def f():\n    pass\n", 'def f():\n    """Nothing yet."""\n'),
    "a class docstring": ("class A:\n    x = 1\n", 'class A:\n    """An A."""\n\n    x = 1\n'),
    "reformatted code": ("x = [1,2]\n", "x = [\n    1,\n    2,\n]\n"),
}

NOT_COMMENTS_ONLY = {
    "a changed string value": ('x = "a"\n', 'x = "b"\n'),
    "changed code": ("x = 1\n", "x = 1\ny = x\n"),
    "a new annotation": ("def f(x):\n    return x\n", "def f(x: int):\n    return x\n"),
    "an unparseable new version": ("x = 1\n", "x = \n"),
    "an unparseable old version": ("x = \n", "x = 1\n"),
}


@pytest.mark.parametrize(("old", "new"), COMMENTS_ONLY.values(), ids=COMMENTS_ONLY.keys())
def test_comment_and_docstring_edits_are_comments_only(old: str, new: str) -> None:
    """Comments, docstrings and layout do not count as code changes."""
    assert comments_and_docstrings_only(old, new)


@pytest.mark.parametrize(("old", "new"), NOT_COMMENTS_ONLY.values(), ids=NOT_COMMENTS_ONLY.keys())
def test_code_edits_are_not_comments_only(old: str, new: str) -> None:
    """Values, statements, annotations and broken source are not comments-only."""
    assert not comments_and_docstrings_only(old, new)


def test_source_too_deep_to_parse_is_a_verdict_not_a_crash() -> None:
    """Pathologically nested code is reported as not analysable."""
    deep = "x = " + "-" * 5000 + "1\n"
    verdict = type_only("x = 1\n", deep)
    assert not verdict.ok
    assert "too deeply nested" in verdict.reason
    assert not comments_and_docstrings_only(deep, deep)
