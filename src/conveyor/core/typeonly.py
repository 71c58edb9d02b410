"""Whether a Python change touches only types, or only comments and docstrings (with `ast`).

Types are annotations, stubs, type-only imports, `Protocol` and `TypedDict` classes, and
schemas (SPEC-90, as the reference allows zod's): the fields of a pydantic, msgspec or
marshmallow class (`x: int = 0`, `x = fields.Str()`) may change, and a new schema class of
fields only may be added.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

_TYPE_CLASS_BASES = frozenset({"Protocol", "TypedDict"})
# Classes whose fields are a schema: pydantic's, SQLModel's, msgspec's, marshmallow's.
_SCHEMA_BASES = frozenset({"BaseModel", "BaseSettings", "SQLModel", "Struct", "Schema"})
_TYPE_VAR_MAKERS = frozenset({"TypeVar", "ParamSpec", "TypeVarTuple"})
_TOO_DEEP = "too deeply nested to analyse"


@dataclass(frozen=True)
class Verdict:
    """The answer for one file: `ok` is True when the change qualifies; `reason` says why not."""

    ok: bool
    reason: str = ""


def _parse(source: str, which: str) -> ast.Module | str:
    """The module, or a one-line description of why it does not parse."""
    try:
        return ast.parse(source, filename=which)
    except RecursionError:
        return f"the {which} version is {_TOO_DEEP}"
    except (SyntaxError, ValueError) as exc:  # ValueError: null bytes in the source
        line = getattr(exc, "lineno", None)
        where = f" at line {line}" if line else ""
        return f"the {which} version does not parse as Python{where}: {exc}"


def _base_name(node: ast.expr) -> str:
    """`Protocol` for `Protocol`, `typing.Protocol` and `Protocol[T]`."""
    if isinstance(node, ast.Subscript):
        return _base_name(node.value)
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return ""


def _is_type_class(node: ast.stmt) -> bool:
    return isinstance(node, ast.ClassDef) and any(
        _base_name(b) in _TYPE_CLASS_BASES for b in node.bases
    )


def _is_schema_class(node: ast.stmt) -> bool:
    return isinstance(node, ast.ClassDef) and any(
        _base_name(b) in _SCHEMA_BASES for b in node.bases
    )


def _root_name(node: ast.expr) -> str:
    """`fields` for `fields.Str(...)` and `ma.fields.Str`: the chain's first name."""
    while isinstance(node, ast.Call | ast.Attribute | ast.Subscript):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else ""


def _is_field(node: ast.stmt) -> bool:
    """A schema's field: `x: int = …`, or marshmallow's `x = fields.Str(…)`."""
    if isinstance(node, ast.AnnAssign):
        return True
    return (
        isinstance(node, ast.Assign)
        and "fields" in ast.dump(node.value)
        and (_root_name(node.value) in ("fields", "ma"))
    )


def _is_plain_schema(node: ast.stmt) -> bool:
    """A schema class of fields (and a docstring) only."""
    return (
        isinstance(node, ast.ClassDef)
        and _is_schema_class(node)
        and all(_is_field(s) or _is_noop(s) for s in node.body)
    )


def _is_stub_body(body: list[ast.stmt]) -> bool:
    """A body of only `...`, `pass`, a docstring or `raise NotImplementedError`."""
    for stmt in body:
        if isinstance(stmt, ast.Pass):
            continue
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue
        if isinstance(stmt, ast.Raise) and stmt.exc is not None:
            exc = stmt.exc.func if isinstance(stmt.exc, ast.Call) else stmt.exc
            if _base_name(exc) == "NotImplementedError":
                continue
        return False
    return True


def _is_overload(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(_base_name(d) == "overload" for d in node.decorator_list)


def _is_type_checking_block(node: ast.stmt) -> bool:
    return isinstance(node, ast.If) and _base_name(node.test) == "TYPE_CHECKING"


def _is_type_var(node: ast.stmt) -> bool:
    value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
    return isinstance(value, ast.Call) and _base_name(value.func) in _TYPE_VAR_MAKERS


def _is_noop(node: ast.stmt) -> bool:
    """`pass` and bare constants (docstrings, `...`): statements that do nothing."""
    return isinstance(node, ast.Pass) or (
        isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    )


class _DropNoops(ast.NodeTransformer):
    """Removes docstrings and every other statement that does nothing."""

    def generic_visit(self, node: ast.AST) -> ast.AST:
        for field in ("body", "orelse", "finalbody"):
            stmts = getattr(node, field, None)
            if isinstance(stmts, list):
                setattr(node, field, [s for s in stmts if not _is_noop(s)])
        return super().generic_visit(node)


class _DropTypes(ast.NodeTransformer):
    """Removes annotations, TYPE_CHECKING blocks, type variables and stub members.

    In the body of an ordinary class an annotated name is a field (dataclasses,
    named tuples, models build on them), so it stays, with its annotation blanked.
    """

    def __init__(self, new_type_classes: frozenset[str]) -> None:
        self.new_type_classes = new_type_classes

    def _rewrite(self, node: ast.stmt, owner: str) -> list[ast.stmt]:
        """What `node` becomes in a statement list owned by a `type` class, `class` or `other`."""
        if _is_type_checking_block(node):
            assert isinstance(node, ast.If)
            return [out for stmt in node.orelse for out in self._rewrite(stmt, owner)]
        if _is_type_var(node):
            return []
        if isinstance(node, ast.ClassDef) and node.name in self.new_type_classes:
            return []
        if owner == "schema" and _is_field(node):
            return []
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and (
            owner == "type" or _is_overload(node)
        ):
            return [] if _is_stub_body(node.body) else [node]
        if not isinstance(node, ast.AnnAssign):
            return [node]
        if owner == "class":
            blank = ast.Constant(value=None)
            return [ast.AnnAssign(node.target, blank, node.value, node.simple)]
        if node.value is None:
            return []
        return [ast.Assign(targets=[node.target], value=node.value, type_comment=None)]

    def generic_visit(self, node: ast.AST) -> ast.AST:
        owner = "other"
        if isinstance(node, ast.ClassDef):
            owner = "class"
            owner = "schema" if _is_schema_class(node) else owner
            owner = "type" if _is_type_class(node) else owner
        for field in ("body", "orelse", "finalbody"):
            stmts = getattr(node, field, None)
            if isinstance(stmts, list):
                setattr(node, field, [out for s in stmts for out in self._rewrite(s, owner)])
        return super().generic_visit(node)

    def visit_arg(self, node: ast.arg) -> ast.AST:
        node.annotation = None
        node.type_comment = None
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        node.returns = None
        node.type_comment = None
        return self.generic_visit(node)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> ast.AST:
        node.returns = None
        node.type_comment = None
        return self.generic_visit(node)


def _used_names(tree: ast.AST) -> set[str]:
    """Every bare name the module reads (attribute chains count by their root)."""
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}


def _bound_name(alias: ast.alias) -> str:
    return alias.asname or alias.name.split(".", 1)[0]


class _DropTypeImports(ast.NodeTransformer):
    """Removes imports whose names were read only by what `_DropTypes` removed."""

    def __init__(self, before: set[str], after: set[str]) -> None:
        self.type_only = before - after

    def _prune(self, node: ast.Import | ast.ImportFrom) -> ast.AST | None:
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            return None
        node.names = [a for a in node.names if _bound_name(a) not in self.type_only]
        return node if node.names else None

    def visit_Import(self, node: ast.Import) -> ast.AST | None:
        return self._prune(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> ast.AST | None:
        return self._prune(node)


def _class_names(tree: ast.Module, only_type_classes: bool) -> frozenset[str]:
    """Every class's name, or only those of type classes and schemas of fields only."""
    return frozenset(
        n.name
        for n in ast.walk(tree)
        if isinstance(n, ast.ClassDef)
        and (_is_type_class(n) or _is_plain_schema(n) or not only_type_classes)
    )


def _runtime_dump(tree: ast.Module, new_type_classes: frozenset[str]) -> str:
    before = _used_names(tree)
    stripped = _DropTypes(new_type_classes).visit(_DropNoops().visit(tree))
    pruned = _DropTypeImports(before, _used_names(stripped)).visit(stripped)
    return ast.dump(_DropNoops().visit(pruned))


def type_only(old: str, new: str) -> Verdict:
    """Whether `old` → `new` changes only types (annotations, stubs, type-only imports).

    A file that did not exist is passed as the empty string.
    """
    old_tree, new_tree = _parse(old, "old"), _parse(new, "new")
    if isinstance(old_tree, str):
        return Verdict(ok=False, reason=old_tree)
    if isinstance(new_tree, str):
        return Verdict(ok=False, reason=new_tree)
    added = _class_names(new_tree, only_type_classes=True) - _class_names(old_tree, False)
    try:
        same = _runtime_dump(old_tree, frozenset()) == _runtime_dump(new_tree, added)
    except RecursionError:
        return Verdict(ok=False, reason=f"the source is {_TOO_DEEP}")
    if same:
        return Verdict(ok=True)
    return Verdict(ok=False, reason="the change alters runtime code, not only types")


def comments_and_docstrings_only(old: str, new: str) -> bool:
    """Whether `old` → `new` changes only comments, docstrings and no-op statements.

    Source that does not parse is never comments-only.
    """
    old_tree, new_tree = _parse(old, "old"), _parse(new, "new")
    if isinstance(old_tree, str) or isinstance(new_tree, str):
        return False
    try:
        return ast.dump(_DropNoops().visit(old_tree)) == ast.dump(_DropNoops().visit(new_tree))
    except RecursionError:
        return False
