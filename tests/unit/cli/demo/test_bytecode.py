"""The demo writes the bytecode its boxed test runs would compile and could not keep."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

from conveyor.cli.demo import issues
from conveyor.cli.demo.bytecode import TEST_PACKAGES, pytest_sources

TEMPLATE = Path(issues.__file__).parents[2] / "sample" / "template"


def test_every_module_of_pytest_the_samples_tests_load_is_in_the_list() -> None:
    """What a run of the sample's tests loads of pytest, pluggy and iniconfig is what the
    demo writes the bytecode of (`write_bytecode` itself: tests/unit/agents)."""
    code = (
        "import json, sys, pytest\n"
        "pytest.main(['-q', '-p', 'no:cacheprovider', sys.argv[1]])\n"
        "print(json.dumps([getattr(m, '__file__', None) for m in list(sys.modules.values())]))"
    )
    argv = [sys.executable, "-B", "-c", code, str(TEMPLATE)]
    done = subprocess.run(argv, capture_output=True, text=True, check=True, cwd=TEMPLATE)
    files = [Path(f).resolve() for f in json.loads(done.stdout.splitlines()[-1]) if f]
    specs = [importlib.util.find_spec(name) for name in TEST_PACKAGES]
    roots = {Path(str(spec.origin)).parent for spec in specs if spec is not None}
    assert all(root.name in TEST_PACKAGES for root in roots)  # packages, not site-packages
    loaded = {f for f in files if any(f.is_relative_to(r) for r in roots)}
    assert loaded
    assert loaded <= {p.resolve() for p in pytest_sources()}
