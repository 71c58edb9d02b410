"""A change of comments only, read in each language's own syntax (CHK-3, issue 47 point 5)."""

from __future__ import annotations

import pytest

from conveyor.core.comments import comments_only
from conveyor.core.ecosystems import of_path

SAME_CODE = {
    "src/calc.ts": (
        "export function add(a: number, b: number) {\n  return a + b;\n}\n",
        "/** Adds. */\nexport function add(a: number, b: number) {\n"
        "  // plus\n  return a + b; /* sum */\n}\n",
    ),
    "lib/calc.js": (
        "const s = 'a // b';\nmodule.exports = s;\n",
        "const s = 'a // b'; // s\nmodule.exports = s;\n",
    ),
    "calc/calc.go": (
        "func Add(a, b int) int {\n\treturn a + b\n}\n",
        "// Add adds.\nfunc Add(a, b int) int {\n\treturn a + b // sum\n}\n",
    ),
    "src/lib.rs": (
        "pub fn add<'a>(a: &'a i32) -> i32 {\n    *a\n}\n",
        "/// Adds.\npub fn add<'a>(a: &'a i32) -> i32 {\n    *a // deref\n}\n",
    ),
    "src/calc.cc": (
        "int add(int a, int b) { return a + b; }\n",
        "/* add */\nint add(int a, int b) { return a + b; }  // sum\n",
    ),
    "src/Calc.java": (
        "class Calc { int add(int a, int b) { return a + b; } }\n",
        "/** Calc. */\nclass Calc { int add(int a, int b) { return a + b; } }\n",
    ),
}
OTHER_CODE = {
    "a string's text": ("src/calc.ts", "const s = 'a  b';\n", "const s = 'a b';\n"),
    "a comment marker inside a string": ("lib/calc.js", "const s = '// x';\n", "const s = '';\n"),
    "a line break that ends a statement": ("lib/calc.js", "return\nvalue;\n", "return value;\n"),
    "a directive comment added": ("src/calc.ts", "let a = f();\n", "// @ts-ignore\nlet a = f();\n"),
    "a go directive added": ("calc/calc.go", "package calc\n", "//go:build ignore\npackage calc\n"),
    "a lint suppression in C": ("src/calc.cc", "int a;\n", "int a; // NOLINT\n"),
    "code in Rust": ("src/lib.rs", "fn a() -> i32 { 1 }\n", "fn a() -> i32 { 2 }\n"),
}


@pytest.mark.parametrize("path", SAME_CODE, ids=SAME_CODE.keys())
def test_comments_added_in_any_language_leave_its_code_as_it_was(path: str) -> None:
    """Line and block comments, doc comments, trailing comments: not a code change."""
    ecosystem = of_path(path)
    assert ecosystem is not None
    old, new = SAME_CODE[path]
    assert comments_only(old, new, ecosystem.comments)


@pytest.mark.parametrize(("path", "old", "new"), OTHER_CODE.values(), ids=OTHER_CODE.keys())
def test_a_change_outside_comments_or_a_directive_comment_is_a_code_change(
    path: str, old: str, new: str
) -> None:
    """Strings, statement-ending line breaks and comments that steer tools count."""
    ecosystem = of_path(path)
    assert ecosystem is not None
    assert not comments_only(old, new, ecosystem.comments)


def test_a_file_of_no_known_language_has_no_comment_syntax() -> None:
    """A file Conveyor cannot read is never comments-only."""
    assert of_path("data/table.csv") is None
    assert of_path("types/index.d.ts") is not None
