"""House rules that ruff and import-linter cannot check: pure core, no mocks, small modules."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import conveyor

SRC = Path(conveyor.__file__).parent
PURE = [SRC / "core", SRC / "stages", SRC / "orchestrator"]
IMPURE_OK = set((SRC / "orchestrator" / "shell").rglob("*.py"))
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
        text = path.read_text()
        if "mock" not in text:  # no import of it can hide in a file without the word
            continue
        for node in ast.walk(ast.parse(text, str(path))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            if any(n.split(".")[:2] == ["unittest", "mock"] for n in names):
                users.append(str(path))
    assert users == []


MAX_LINES = 300
ROOT = SRC.parent.parent


def house_modules() -> list[Path]:
    """Every module of ours: the package (not the demo's sample repository) and the tests."""
    package = [p for p in SRC.rglob("*.py") if (SRC / "sample") not in p.parents]
    return sorted([*package, *(ROOT / "tests").rglob("*.py")])


def oversized(paths: list[Path], root: Path = ROOT, limit: int = MAX_LINES) -> list[str]:
    """`path (N lines)`, relative to `root`, for each module longer than `limit` lines."""
    counts = {path: len(path.read_text().splitlines()) for path in paths}
    return [f"{p.relative_to(root)} ({n} lines)" for p, n in counts.items() if n > limit]


def undocumented(paths: list[Path], root: Path = ROOT) -> list[str]:
    """The modules that do not open with a docstring whose first line says what they are."""
    bad = []
    for path in paths:
        doc = ast.get_docstring(ast.parse(path.read_text(), str(path)), clean=False)
        if doc is None or not doc.split("\n", 1)[0].strip():
            bad.append(str(path.relative_to(root)))
    return bad


def test_every_module_of_the_package_and_the_tests_has_at_most_300_lines() -> None:
    """Modules stay small (≤ 300 lines, split by concept); the offenders are named."""
    too_long = oversized(house_modules())
    assert not too_long, f"split by concept (at most {MAX_LINES} lines): {', '.join(too_long)}"


def test_every_package_module_opens_with_a_docstring_saying_what_it_is() -> None:
    """Each module under src/ starts with a docstring whose first line is its summary."""
    package = [p for p in house_modules() if SRC in p.parents]
    missing = undocumented(package)
    assert not missing, f"open with a one-line docstring: {', '.join(missing)}"


def test_the_size_and_docstring_checks_name_a_long_module_and_a_bare_one(tmp_path: Path) -> None:
    """The checks themselves can fail: a 301-line module and one without a docstring are named."""
    long, bare, fine = tmp_path / "long.py", tmp_path / "bare.py", tmp_path / "fine.py"
    long.write_text('"""Long."""\n' + "x = 1\n" * 300)
    bare.write_text("x = 1\n")
    fine.write_text('"""Fine."""\n' + "x = 1\n" * 299)
    modules = [long, bare, fine]
    assert oversized(modules, tmp_path) == ["long.py (301 lines)"]
    assert undocumented(modules, tmp_path) == ["bare.py"]


MODULE_PATH = re.compile(r"`([a-z_]+/[A-Za-z0-9_/.-]*[A-Za-z0-9_])`")


def missing_modules(text: str, package: Path) -> list[str]:
    """The `folder/module.py` (or `folder/sub/`) paths under the package a page names that
    do not exist; paths of other trees (`tests/`, `docs/`, `runs/`) are not checked."""
    folders = {p.name for p in package.iterdir() if p.is_dir()}
    named = {m.group(1) for m in MODULE_PATH.finditer(text)}
    ours = sorted(p for p in named if p.split("/", 1)[0] in folders)
    return [p for p in ours if not (package / p).exists()]


def test_the_architecture_page_names_only_modules_that_exist() -> None:
    """Every package path docs/architecture.md cites (the life of an issue, the caches) exists."""
    page = (ROOT / "docs" / "architecture.md").read_text()
    gone = missing_modules(page, SRC)
    assert not gone, f"docs/architecture.md names modules that do not exist: {', '.join(gone)}"


def test_the_page_check_names_a_module_that_does_not_exist(tmp_path: Path) -> None:
    """The check itself can fail: a cited module missing from the package is named."""
    (tmp_path / "job").mkdir()
    (tmp_path / "job" / "main.py").write_text('"""Main."""\n')
    page = "`job/main.py` runs it, `job/gone.py` is cited, `runs/issue-N/` is not ours"
    assert missing_modules(page, tmp_path) == ["job/gone.py"]
