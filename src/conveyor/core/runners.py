"""The test runners Conveyor knows, as data: how each is started, its options, its exit codes.

A row per runner. `programs` are the names it is started by (a path's last part),
`modules` what `python -m` starts it as. `grammar` is its command line where Conveyor
may leave out a test file the tree lacks (`core.command_fit`); a runner without one is
never rewritten. `exits` says what its exit statuses mean (`core.test_runs`), `reader`
which reader of `core.run_output` reads its results from the output, and `report_vars`
the variables that ask it, or a reporter it may have installed, for a JUnit XML report
without editing the command (each set to the run's report path).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Grammar:
    """A runner's command line: which options take a value, which none.

    `many` take one or more values (yargs arrays): the words after one are never read
    as test paths. Positional words are test files or folders when `paths`.
    """

    valued: frozenset[str]
    flags: frozenset[str]
    many: frozenset[str] = frozenset()
    subcommands: frozenset[str] = frozenset()
    paths: bool = True


@dataclass(frozen=True)
class Exits:
    """What a runner's exit statuses mean.

    `failed`: the tests ran and some failed (None: any status 1-125, a failure count).
    `crash`: the runner broke before reporting (an internal error, a compile failure),
    which the new tests may have caused. `environment`: never the tests (a usage
    error, nothing collected). A status a runner reads as failed but whose output
    shows no test results is a crash too, for a runner with `results_shown`.
    """

    failed: frozenset[int] | None = frozenset({1})
    crash: frozenset[int] = frozenset()
    environment: Mapping[int, str] = field(default_factory=dict)
    results_shown: bool = True


@dataclass(frozen=True)
class Runner:
    """One test runner."""

    name: str
    ecosystem: str
    programs: frozenset[str]
    exits: Exits
    reader: str
    modules: frozenset[str] = frozenset()
    grammar: Grammar | None = None
    report_vars: tuple[str, ...] = ()
    # The word after the program (its options skipped) that makes it a test run: `go test`.
    verbs: frozenset[str] = frozenset()


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_PYTEST = Grammar(
    valued=_words(
        "-k -m -p -c -o -W -r -n --rootdir --confcutdir --basetemp --junitxml --junit-xml "
        "--junit-prefix --deselect --ignore --ignore-glob --tb --maxfail --import-mode --durations "
        "--durations-min --log-level --log-cli-level --log-file --log-format --log-date-format "
        "--cov-report --cov-config --cov-fail-under --color --capture --override-ini --dist "
        "--timeout --reruns --randomly-seed --doctest-glob --report-log --cov-context --html "
        "--json-report-file"
    ),
    flags=_words(
        "-q -v -x -s -l -vv -qq --lf --ff --nf --sw --last-failed --failed-first --strict-markers "
        "--strict-config --disable-warnings --runxfail --doctest-modules --showlocals --setup-show "
        "--co --collect-only --no-header --no-summary --exitfirst --quiet --verbose --full-trace "
        "--pdb --trace --new-first --stepwise --cache-clear --pyargs --no-cov --fulltrace "
        "--no-cov-on-fail --continue-on-collection-errors --forked --looponfail --benchmark-skip "
        "--json-report"
    ),
)
_MOCHA = Grammar(
    valued=_words(  # --require, --spec… are arrays, but take one value a time
        "--config --package --reporter -R --reporter-option --reporter-options -O --ui -u "
        "--timeout -t --timeouts --slow -s --grep -g --fgrep -f --jobs -j --retries --node-option "
        "-n --global --globals --require -r --file --ignore --exclude --extension --spec "
        "--watch-files --watch-ignore"
    ),
    flags=_words(
        "--allow-uncaught --async-only -A --bail -b --check-leaks --color -c --colors --diff "
        "--dry-run --exit --fail-zero --forbid-only --forbid-pending --full-trace --growl -G "
        "--inline-diffs --invert -i --parallel -p --recursive --sort -S --watch -w --delay "
        "--no-timeouts --no-diff --no-config --no-package --no-colors -C --no-exit --inspect "
        "--inspect-brk --enable-source-maps --trace-warnings"
    ),
)
_JEST = Grammar(
    valued=_words(
        "--config -c --rootDir --testNamePattern -t --maxWorkers -w --outputFile --testTimeout "
        "--shard --seed --testEnvironment --env --coverageProvider --changedSince --testRunner "
        "--testSequencer --cacheDirectory --testPathPattern"
    ),
    flags=_words(
        "--ci --runInBand -i --coverage --verbose --silent --bail -b --watch --watchAll "
        "--passWithNoTests --detectOpenHandles --forceExit --no-cache --colors --json "
        "--onlyChanged -o --updateSnapshot -u --listTests --logHeapUsage --useStderr "
        "--noStackTrace --errorOnDeprecated --clearCache --expand -e --debug --no-coverage "
        "--no-watchman --randomize --showSeed --injectGlobals"
    ),
    many=frozenset(  # yargs arrays: `--roots a b` takes both
        [
            "--selectProjects",
            "--testPathIgnorePatterns",
            "--roots",
            "--testMatch",
            "--projects",
            "--reporters",
            "--coverageReporters",
            "--collectCoverageFrom",
            "--setupFiles",
            "--setupFilesAfterEach",
        ]
    ),
)
_VITEST = Grammar(
    valued=_words(
        "--config -c --root -r --dir --reporter --outputFile --environment --pool "
        "--testNamePattern -t --project --shard --mode --maxWorkers --minWorkers --testTimeout "
        "--hookTimeout --bail --retry --sequence.seed --exclude"
    ),
    flags=_words(
        "--run --watch -w --globals --dom --coverage --ui --silent --passWithNoTests --allowOnly "
        "--update -u --changed --no-color --no-watch --typecheck"
    ),
    subcommands=frozenset({"run", "related", "watch", "dev"}),
)

_NODE_EXITS = Exits(failed=frozenset({1}))

RUNNERS: tuple[Runner, ...] = (
    Runner(
        "pytest",
        "python",
        frozenset({"pytest", "py.test"}),
        Exits(
            failed=frozenset({1, 2}),
            crash=frozenset({3}),
            environment={
                4: "the test command was used wrongly (exit 4: a usage error, e.g. a path "
                "that is missing)",
                5: "the test command collected no tests (exit 5)",
            },
            results_shown=False,
        ),
        "pytest",
        modules=frozenset({"pytest", "py.test"}),
        grammar=_PYTEST,
    ),
    Runner(
        "mocha",
        "javascript",
        frozenset({"mocha", "_mocha", "mocha.js"}),
        Exits(failed=None),  # mocha exits with its count of failures
        "mocha",
        grammar=_MOCHA,
        report_vars=("MOCHA_FILE",),  # mocha-junit-reporter, where the project uses it
    ),
    Runner(
        "jest",
        "javascript",
        frozenset({"jest", "jest.js"}),
        _NODE_EXITS,
        "jest",
        grammar=_JEST,
        report_vars=("JEST_JUNIT_OUTPUT_FILE",),  # jest-junit, where the project uses it
    ),
    Runner(
        "vitest",
        "javascript",
        frozenset({"vitest", "vitest.mjs"}),
        _NODE_EXITS,
        "vitest",
        grammar=_VITEST,
    ),
    Runner(
        "go-test",
        "go",
        frozenset({"go"}),
        Exits(environment={2: "the go command was used wrongly (exit 2)"}),
        "go",
        verbs=frozenset({"test"}),
    ),
    Runner(
        "cargo-test",
        "rust",
        frozenset({"cargo"}),
        # libtest's panic exit, nextest's failed run (a compile failure is 101: its output tells)
        Exits(failed=frozenset({100, 101})),
        "libtest",
        verbs=frozenset({"test", "nextest"}),
    ),
    Runner(
        "ctest",
        "c",
        frozenset({"ctest"}),
        Exits(failed=frozenset({8})),
        "ctest",
    ),
)

_BY_NAME = {r.name: r for r in RUNNERS}


def report_vars() -> tuple[str, ...]:
    """Every variable a runner's reporter reads its JUnit report's path from."""
    return tuple(dict.fromkeys(v for r in RUNNERS for v in r.report_vars))


def runner_named(name: str) -> Runner | None:
    """The runner called `name`, if Conveyor knows it."""
    return _BY_NAME.get(name)


# Signals that mean the program itself crashed (a test's segfault, an abort), by number.
CRASH_SIGNALS = frozenset({4, 6, 7, 8, 11})
