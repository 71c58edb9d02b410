# Set-up and the gate. `make test` and `make demo` each create .venv when missing.
# The venv's interpreter: the distribution's own python3.11 when the machine has one (Debian
# builds it with profile-guided and link-time optimisation: our code runs about a quarter
# faster on it than on a plain source or pyenv build, and the gate is CPU-bound), else the
# python3 on PATH. `make PYTHON=...` picks another; an existing .venv is kept as it is.
PYTHON ?= $(firstword $(wildcard /usr/bin/python3.11) python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
# mypy's incremental cache, kept outside the checkout and shared by every checkout on the
# machine: a fresh clone (new paths, new mtimes) reuses it, as mypy takes a cached module
# whose source has the same size and content hash; it re-checks every file that changed.
MYPY_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/conveyor/mypy/shared

.PHONY: test demo gate lint pytest clean clis chromium node-fixtures

# Bytecode is cached whatever the calling environment says (some machines export
# PYTHONDONTWRITEBYTECODE=1): uv installs without it, so every process would compile what it
# imports from source each time, and pytest would rewrite every test module's asserts in
# every worker on every run (8 s of CPU per worker; 3 s with the rewrites cached).
unexport PYTHONDONTWRITEBYTECODE

# uv installs (pinned in pyproject's test extra): the whole install takes seconds where pip
# took over half a minute of one core. The venv has no pip of its own (ensurepip is ~4 s of
# one core while nothing else can run): the interpreter's pip puts uv in it (`pip --python`,
# pip 22.3+); without such a pip, the venv gets its own first.
UV_PIN := $(shell grep -o '"uv==[^"]*"' pyproject.toml | tr -d '"')
PIP_QUIET := -q --disable-pip-version-check

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv --without-pip $(VENV)
	$(PYTHON) -m pip --python $(BIN)/python install $(PIP_QUIET) '$(UV_PIN)' 2>/dev/null || \
		{ $(BIN)/python -m ensurepip >/dev/null && $(BIN)/python -m pip install $(PIP_QUIET) '$(UV_PIN)'; }
	$(BIN)/uv pip install -q --python $(BIN)/python -e '.[test,lint]'
	touch $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .
	$(BIN)/mypy --cache-dir '$(MYPY_CACHE)'
	$(BIN)/lint-imports

# The real agent CLIs at pinned versions, cached outside the repository (see the script).
clis:
	scripts/install-agent-clis >/dev/null

# The npm packages the JavaScript and TypeScript fixture repositories install
# (tests/fixtures/langs/*/base/package-lock.json), cached once outside the repository (see
# the script); their tests install them offline from there.
node-fixtures:
	scripts/install-node-fixtures >/dev/null

# The forge pages' browser test drives Debian's Chromium through playwright (which never
# downloads a browser of its own); installed here when missing (CI runs as root on Debian 12).
chromium:
	@test -x /usr/bin/chromium || { apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium; }

# The gate: lint and pytest run side by side (pytest waits on subprocesses much of the
# time, and lint fills it); the venv, the CLIs and Chromium install side by side first.
# `-k` lets both finish so one run shows every failure; make exits non-zero if either fails.
# No --output-sync: it would hold pytest's progress until pytest ends (lint prints a few lines).
test:
	$(MAKE) --no-print-directory -k -j4 lint pytest

# Four workers on two cores: most tests wait on subprocesses (git, jobs, the forge), so
# twice as many workers as cores keeps both busy. worksteal evens out the long e2e tests;
# tests/conftest.py starts each worker's block with its share of the long ones.
# The collection first, alone: it caches the rewritten test modules and compiles what they
# import (on a fresh clone: 8 s of one core, beside lint), which the four workers then load
# instead of each doing all of it at once. A collection error shows in the run that follows.
# The gate also measures line coverage of src/conveyor in the pytest workers (pytest-cov; no
# threshold) and prints, once the tests pass, the ten least covered files and the total;
# `.venv/bin/coverage report` then lists every file, `coverage html` marks lines. On Python
# 3.11 coverage traces through sys.settrace, which costs the pytest processes 40-70% more CPU
# (README; the wall time less, as most tests wait on child processes); `make test COVERAGE=`
# skips it. Code that runs only in a child process (a job, a forked command, the scripted
# agent) is not measured.
COVERAGE ?= 1
COV_ARGS := $(if $(COVERAGE),--cov --cov-report=)
COV_SUMMARY := NR <= 12 || /^TOTAL/; / 0\.0%$$/ { none++ } END { print none + 0, "files not run at all" }
pytest: $(STAMP) clis chromium node-fixtures
	$(BIN)/pytest --collect-only -q >/dev/null 2>&1 || true
	$(BIN)/pytest -n 4 --dist worksteal --durations=30 $(COV_ARGS)
	$(if $(COVERAGE),@$(BIN)/coverage report | awk '$(COV_SUMMARY)')

demo: $(STAMP)
	$(BIN)/conveyor demo

clean:
	rm -rf $(VENV)
