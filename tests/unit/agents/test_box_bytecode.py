"""Conveyor's modules that run in a box get their bytecode written outside it, where the
package is writable: inside, read-only, it would be compiled again at every start."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

from conveyor.agents.boxed import in_box_sources, write_bytecode


def test_missing_bytecode_is_written_and_up_to_date_bytecode_left_alone(tmp_path: Path) -> None:
    """A module without a `.pyc` gets one; a second pass rewrites nothing."""
    module = tmp_path / "probe_module.py"
    module.write_text("VALUE = 1\n")
    cached = Path(importlib.util.cache_from_source(str(module)))
    assert not cached.exists()
    write_bytecode([module])
    assert cached.is_file()
    written = cached.stat().st_mtime_ns
    write_bytecode([module])
    assert cached.stat().st_mtime_ns == written


def test_every_conveyor_module_the_scripted_agent_imports_is_written() -> None:
    """What `conveyor-scripted-agent` loads of Conveyor is in the list (a new module of the
    agent would otherwise be compiled at every boxed session's start again)."""
    code = (
        "import json, sys, conveyor.agents.scripted.main\n"
        "print(json.dumps([getattr(m, '__file__', None) for n, m in sys.modules.items()"
        " if n.split('.')[0] == 'conveyor']))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = {Path(f).resolve() for f in json.loads(done.stdout) if f}
    assert loaded
    assert loaded <= set(in_box_sources())
