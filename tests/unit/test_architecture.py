"""The pure core does no I/O: checks ruff's banned-api list cannot make."""

from __future__ import annotations

import ast
from pathlib import Path

import conveyor

SRC = Path(conveyor.__file__).parent
PURE = [SRC / "core", SRC / "stages", SRC / "orchestrator"]
IMPURE_OK = {SRC / "orchestrator" / "tick.py", *(SRC / "orchestrator" / "shell").rglob("*.py")}
BANNED_BUILTINS = {"open", "print", "input", "exec", "eval", "breakpoint"}
PATH_IO = {
    "read_text", "read_bytes", "write_text", "write_bytes", "open", "mkdir", "touch",
    "unlink", "rmdir", "iterdir", "glob", "rglob", "exists",
    "is_file", "is_dir", "stat", "resolve", "chmod", "symlink_to", "cwd", "home",
}  # fmt: skip


def pure_modules() -> list[Path]:
    """Every module of the pure core."""
    files = [f for folder in PURE for f in folder.rglob("*.py")]
    return [f for f in files if f not in IMPURE_OK]


def offences(tree: ast.AST) -> list[str]:
    """Calls of I/O builtins and Path I/O methods in one module."""
    found: list[str] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id in BANNED_BUILTINS:
            found.append(f"line {node.lineno}: {func.id}()")
        if isinstance(func, ast.Attribute) and func.attr in PATH_IO:
            found.append(f"line {node.lineno}: .{func.attr}()")
    return found


def test_the_pure_core_calls_no_io_builtins_or_path_methods() -> None:
    """core/, stages/ and the orchestrator's rules never open, print or touch the disk."""
    bad = {
        str(path.relative_to(SRC)): hits
        for path in pure_modules()
        if (hits := offences(ast.parse(path.read_text(), str(path))))
    }
    assert bad == {}


def test_the_walker_catches_an_open_call_and_a_path_read() -> None:
    """The check itself can fail: a planted `open` and `read_text` are reported."""
    tree = ast.parse("open('x')\nfrom pathlib import Path\nPath('x').read_text()\n")
    assert len(offences(tree)) == 2


def test_no_module_imports_the_mock_library() -> None:
    """Tests use fakes (the emulator, the scripted agent, real git), never mocks."""
    root = SRC.parent.parent
    users = []
    for path in [*SRC.rglob("*.py"), *(root / "tests").rglob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            if any(n.split(".")[:2] == ["unittest", "mock"] for n in names):
                users.append(str(path))
    assert users == []
