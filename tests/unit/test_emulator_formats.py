"""The embedded forge holds no copy of the pipeline's file formats, and `conveyor status`
reads the pipeline's files through the pipeline's own modules, not the forge's (#50)."""

from __future__ import annotations

import ast
from pathlib import Path

import conveyor
from conveyor.core.timeline import RUN_SUFFIX
from conveyor.job.events import EVENTS_FILE
from conveyor.job.jobfile import JOB_FILE
from conveyor.job.ledger import LEDGER_FILE
from conveyor.orchestrator.shell.status_file import STATUS_FILE

SRC = Path(conveyor.__file__).parent
NAMES = (STATUS_FILE, LEDGER_FILE, JOB_FILE, EVENTS_FILE, RUN_SUFFIX)


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring constants (they may name a file, they read none)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def copied_formats(source: str) -> list[str]:
    """String constants (not docstrings) naming a pipeline file, or a query of its ledger."""
    tree = ast.parse(source)
    skip = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            text = node.value
            if any(name in text for name in NAMES) or "FROM sessions" in text:
                found.append(f"line {node.lineno}: {text[:60]!r}")
    return found


def test_no_emulator_module_names_a_pipeline_file_or_queries_its_ledger() -> None:
    """The forge is handed a reader (`core.pipeline_view.PipelineReader`) instead."""
    bad = {
        str(path.relative_to(SRC)): hits
        for path in sorted((SRC / "emulator").rglob("*.py"))
        if (hits := copied_formats(path.read_text()))
    }
    assert bad == {}


def test_the_check_itself_finds_a_copied_file_name_and_query() -> None:
    """A planted copy of the status file's name and the ledger's SQL are reported."""
    planted = f'"""Reads {STATUS_FILE}."""\nA = "{STATUS_FILE}"\nB = "SELECT 1 FROM sessions"\n'
    assert len(copied_formats(planted)) == 2


def test_status_reads_the_timeline_without_the_emulator() -> None:
    """`conveyor status --timeline` imports no module of the embedded forge."""
    tree = ast.parse((SRC / "cli" / "status_cmd.py").read_text())
    imported = [
        node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
    ] + [
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    ]
    assert not [name for name in imported if name.startswith("conveyor.emulator")]
