"""Properties of the comments-only and type-only checks over generated modules."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import given
from hypothesis import strategies as st

from conveyor.core.typeonly import comments_and_docstrings_only, type_only

# Comment and docstring text: any printable text on one line.
TEXT = st.text(
    st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")),
    max_size=30,
)


@dataclass(frozen=True)
class Line:
    """One source line: its indentation, its text, and whether a block opens after it."""

    indent: int
    text: str
    opens_block: bool = False


def statement(kind: str, index: int, values: list[int]) -> list[Line]:
    """The lines of one top-level statement using `values` as its constants."""
    a, b = values
    if kind == "assign":
        return [Line(0, f"v{index} = {a}"), Line(0, f"w{index} = v{index} * {b}")]
    if kind == "function":
        return [Line(0, f"def f{index}(p, q={a}):", True), Line(4, f"return p + q * {b}")]
    return [
        Line(0, f"class C{index}:", True),
        Line(4, f"size = {a}"),
        Line(4, "def grow(self):", True),
        Line(8, f"return self.size + {b}"),
    ]


@st.composite
def modules(draw: st.DrawFn) -> tuple[list[str], list[int]]:
    """A module as (statement kinds, constants): two constants per statement."""
    kinds = draw(st.lists(st.sampled_from(["assign", "function", "class"]), min_size=1, max_size=5))
    values = draw(
        st.lists(st.integers(0, 10_000), min_size=2 * len(kinds), max_size=2 * len(kinds))
    )
    return kinds, values


def render(kinds: list[str], values: list[int]) -> list[Line]:
    """The module's lines."""
    lines: list[Line] = []
    for index, kind in enumerate(kinds):
        lines += statement(kind, index, values[2 * index : 2 * index + 2])
    return lines


def plain(lines: list[Line]) -> str:
    """The module's source text."""
    return "".join(" " * line.indent + line.text + "\n" for line in lines)


@st.composite
def decorated(draw: st.DrawFn, lines: list[Line]) -> str:
    """The same module with comments, trailing comments and docstrings added at random."""
    out: list[str] = []
    if draw(st.booleans()):
        out.append(repr(draw(TEXT)))
    for line in lines:
        if draw(st.booleans()):
            out.append(" " * draw(st.integers(0, 8)) + "# " + draw(TEXT))
        trailer = f"  # {draw(TEXT)}" if draw(st.booleans()) else ""
        out.append(" " * line.indent + line.text + trailer)
        if line.opens_block and draw(st.booleans()):
            out.append(" " * (line.indent + 4) + repr(draw(TEXT)))
    return "\n".join(out) + "\n"


@given(st.data(), modules())
def test_a_module_with_added_comments_and_docstrings_is_comments_only(
    data: st.DataObject, module: tuple[list[str], list[int]]
) -> None:
    """Adding comments and docstrings anywhere never counts as a code change."""
    lines = render(*module)
    commented = data.draw(decorated(lines))
    assert comments_and_docstrings_only(plain(lines), commented)
    assert type_only(plain(lines), commented).ok


@given(st.data(), modules())
def test_changing_any_constant_is_a_code_change(
    data: st.DataObject, module: tuple[list[str], list[int]]
) -> None:
    """A changed number is neither comments-only nor type-only, with or without comments."""
    kinds, values = module
    where = data.draw(st.integers(0, len(values) - 1))
    changed = list(values)
    changed[where] = data.draw(st.integers(0, 10_000).filter(lambda v: v != values[where]))
    old = plain(render(kinds, values))
    new = data.draw(decorated(render(kinds, changed)))
    assert not comments_and_docstrings_only(old, new)
    assert not type_only(old, new).ok
