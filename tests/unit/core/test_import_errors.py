"""Import errors in failing tests, and whether the change under test could have caused them."""

from __future__ import annotations

from pathlib import Path

from conveyor.core.import_errors import ImportFailure, import_failure, not_the_change
from conveyor.core.junit import parse_report
from conveyor.core.run_verdict import classify_run
from conveyor.core.test_runs import foreign_imports, imports_note

DATA = Path(__file__).parents[2] / "data" / "junit"
ROOT = "/work/calc"
# pytest's text for a module whose import failed in the package (`--tb=short` frames).
PYTEST_TEXT = """tests/test_mul.py:1: in <module>
    from calc import mul
calc/__init__.py:1: in <module>
    from calc._version import version
E   ModuleNotFoundError: No module named 'calc._version'"""
NO_NAME = "ImportError: cannot import name 'mul' from 'calc' (/work/calc/calc/__init__.py)"


def test_a_missing_module_is_read_with_the_tree_file_it_rose_in() -> None:
    """The module named, and the last frame inside the tree (not the test file)."""
    found = import_failure("tests/test_mul.py", "collection failure", PYTEST_TEXT, ROOT)
    assert found == ImportFailure(
        "tests/test_mul.py",
        "ModuleNotFoundError: No module named 'calc._version'",
        "calc._version",
        "",
        "calc/__init__.py",
    )


def test_a_name_missing_from_a_module_names_that_modules_file() -> None:
    """`cannot import name … (path)` gives the module's file, relative to the tree."""
    text = f'  File "{ROOT}/tests/test_mul.py", line 1, in <module>\n{NO_NAME}\n'
    found = import_failure("tests/test_mul.py::test_mul", NO_NAME, text, ROOT)
    assert found is not None
    assert (found.module, found.module_file, found.raised_in) == (
        "calc",
        "calc/__init__.py",
        "tests/test_mul.py",
    )


def test_frames_outside_the_tree_are_not_where_it_rose() -> None:
    """The standard library's and site-packages' frames are skipped; none inside is unknown."""
    text = (
        '  File "/usr/lib/python3.11/importlib/__init__.py", line 126, in import_module\n'
        "ModuleNotFoundError: No module named 'yaml'\n"
    )
    found = import_failure("tests/test_x.py", "", text, ROOT)
    assert found is not None
    assert found.raised_in == ""


def test_a_failure_that_is_no_import_error_is_none() -> None:
    """An assertion, or an ImportError of another kind, is not an import failure."""
    assert import_failure("t::x", "assert 7 == 12", "E   assert 7 == 12", ROOT) is None
    weird = "ImportError: attempted relative import with no known parent package"
    assert import_failure("t::x", weird, weird, ROOT) is None


def test_unittests_loader_failure_reads_the_error_that_rose_not_its_wrapper() -> None:
    """xmlrunner's loader error starts with its own ImportError; the last one is the cause."""
    parsed = parse_report((DATA / "unittest-xmlrunner.xml").read_text())
    assert parsed is not None
    verdict = classify_run(1, "", report=parsed, root=ROOT)
    assert [(f.test_id, f.module, f.raised_in) for f in verdict.imports] == [
        ("unittest.loader._FailedTest::tests.test_broken", "calc._version", "calc/__init__.py")
    ]


def test_an_import_error_in_untouched_files_is_not_the_changes() -> None:
    """Neither the file it rose in nor the module it names changed: the environment's."""
    found = import_failure("tests/test_mul.py", "", PYTEST_TEXT, ROOT)
    assert found is not None
    assert not_the_change(found, {"tests/test_mul.py"})


def test_an_import_error_the_change_may_have_caused_is_the_changes() -> None:
    """It rose in a changed file, or names a changed module (module or package), or rose
    somewhere unknown: the change may be to blame."""
    found = import_failure("tests/test_mul.py", "", PYTEST_TEXT, ROOT)
    assert found is not None
    assert not not_the_change(found, {"calc/__init__.py"})
    assert not not_the_change(found, {"calc/_version.py"})
    assert not not_the_change(found, {"src/calc/_version/__init__.py"})
    unknown = ImportFailure("t::x", "ModuleNotFoundError: No module named 'q'", "q")
    assert not not_the_change(unknown, set())


def test_the_collection_errors_of_a_pytest_report_are_foreign_imports_with_a_note() -> None:
    """Both modules of the report fail on `calc._version`, which no change touched."""
    parsed = parse_report((DATA / "pytest-xunit1.xml").read_text())
    assert parsed is not None
    verdict = classify_run(1, "", report=parsed, root=ROOT)
    ids = ["tests/test_broken.py", "tests/test_imports.py", "tests/test_mix.py::test_fails"]
    foreign = foreign_imports(verdict, ids, {"tests/test_mix.py"})
    assert [f.test_id for f in foreign] == ["tests/test_broken.py", "tests/test_imports.py"]
    note = imports_note("test", foreign)
    assert "test: tests fail on an import the change did not touch" in note
    assert "tests/test_broken.py: ModuleNotFoundError: No module named 'calc._version'" in note
    assert foreign_imports(verdict, ids, {"calc/__init__.py"}) == ()
