"""The checks that the judges were not gamed: the spec's tests by name, the judges' own
configuration, and no new suppression no rule allows; with the facts every reader gets.

`judge_head` runs after verify's commands and fails-before-fix. Its three checks join
verify's result (`VerifyResult.judges`); `held` names what a person may accept at a
`checks-config` stop (config changes and suppressions, never a spec test that did not
pass). See `verify.config_check` for how each kind of configuration is judged, and
`core.suppressions` for the rules that allow a suppression.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from conveyor.core.check_config import Judge, matching
from conveyor.core.check_facts import CheckFacts, defined_tests, render
from conveyor.core.config import Paths
from conveyor.core.config_changes import ConfigChange, config_change
from conveyor.core.config_judges import Judges
from conveyor.core.paths import matches_any
from conveyor.core.spec_tests import SpecTests, spec_tests_check
from conveyor.core.suppressions import Suppression, SuppressionRules, blocking, found_in
from conveyor.core.verify import CheckResult, CommandResult, Outcome
from conveyor.git import plain
from conveyor.git.keep import BETWEEN_COMMITS
from conveyor.git.plain import Change
from conveyor.verify.config_check import Heads, config_check
from conveyor.verify.config_read import config_changes_at, entries_for, text_at
from conveyor.verify.context import Context

SUPPRESSIONS = "suppressions"


@dataclass(frozen=True)
class Judging:
    """What a head is held to beyond its commands: the spec's tests and config, the project's
    `[judges]`, the spec's text, and what a person accepted at a `checks-config` stop."""

    spec: SpecTests | None = None
    judges: Judges = field(default_factory=Judges)
    spec_text: str = ""
    accepted: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Judged:
    """The judges' checks, the keys a person may accept, and the readers' facts."""

    checks: tuple[CheckResult, ...]
    held: tuple[str, ...]
    facts: str


def diff_text(ctx: Context, base: str, head: str) -> str:
    """`git diff -U0` from base to head, every file as text: a `.gitattributes` the change adds
    (`*.py -diff`) can neither hide added lines as binary nor run a diff driver."""
    out = plain.git(
        ctx.tree,
        *("diff", BETWEEN_COMMITS, "-U0", "--text", "--no-renames", "--no-color", "--no-ext-diff"),
        "--no-textconv",
        base,
        head,
        "--",
    )
    return out.decode("utf-8", errors="replace")


def suppressions_of(ctx: Context, base: str, head: str) -> tuple[Suppression, ...]:
    """Every suppression the change adds (a skip only on a test the base had)."""
    return found_in(
        diff_text(ctx, base, head),
        lambda p: text_at(ctx, head, p),
        lambda p: text_at(ctx, base, p),
    )


def _rules(judging: Judging) -> SuppressionRules:
    spec = judging.spec
    return SuppressionRules(
        spec_keys=frozenset(spec.suppressions) if spec is not None else frozenset(),
        project=frozenset(judging.judges.allow_suppressions),
        spec_text=judging.spec_text,
        accepted=judging.accepted,
    )


def _suppression_check(
    found: Sequence[Suppression], judging: Judging
) -> tuple[CheckResult, tuple[str, ...]]:
    if not found:
        return CheckResult(SUPPRESSIONS, Outcome.SKIPPED, "none added"), ()
    blocked, allowed = blocking(found, _rules(judging))
    if blocked:
        listed = "; ".join(s.shown() for s in blocked)
        why = f"{len(blocked)} new, no rule allows: {listed}"
        return CheckResult(SUPPRESSIONS, Outcome.FAILED, why), tuple(s.key for s in blocked)
    rules = sorted(set(allowed.values()))
    return CheckResult(
        SUPPRESSIONS, Outcome.PASSED, f"{len(found)} allowed ({'; '.join(rules)})"
    ), ()


def _tests_moved(
    ctx: Context, paths: Paths, base: str, head: str, changes: Sequence[Change]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    added: list[str] = []
    removed: list[str] = []
    for change in changes:
        if not matches_any(change.path, paths.tests):
            continue
        before = set(defined_tests(change.path, text_at(ctx, base, change.path)))
        after = defined_tests(change.path, text_at(ctx, head, change.path))
        added += [f"{change.path}::{n}" for n in after if n not in before]
        removed += [f"{change.path}::{n}" for n in sorted(before - set(after))]
    return tuple(added), tuple(removed)


@dataclass(frozen=True)
class _Found:
    config: tuple[ConfigChange, ...]
    suppressions: tuple[Suppression, ...]
    facts: CheckFacts


def _find(ctx: Context, paths: Paths, judging: Judging, heads: Heads) -> _Found:
    base, head, changes = heads.base, heads.head, heads.changes
    spec = judging.spec
    pins = dict(spec.config) if spec is not None else {}
    entries = entries_for(judging.judges, ctx.commands)
    config = config_changes_at(ctx, entries, pins, base=base, head=head, changes=changes)
    found = suppressions_of(ctx, base, head)
    _, allowed = blocking(found, _rules(judging))
    added, removed = _tests_moved(ctx, paths, base, head, changes)
    facts = CheckFacts(
        config=config,
        accepted=judging.accepted,
        suppressions=found,
        allowed=allowed,
        added=added,
        removed=removed,
        spec_tests=spec.ids if spec is not None else (),
    )
    return _Found(config, found, facts)


def test_infrastructure(
    ctx: Context, judging: Judging, base: str, head: str, changes: Sequence[Change]
) -> frozenset[str]:
    """The changed files that configure the test runner, by anyone (the spec too)."""
    entries = [e for e in entries_for(judging.judges, ctx.commands) if e.judge is Judge.TESTS]
    return frozenset(
        c.path
        for c in changes
        if matching(c.path, entries)
        and config_change(c.path, entries, text_at(ctx, base, c.path), text_at(ctx, head, c.path))
        is not None
    )


def read_facts(ctx: Context, paths: Paths, judging: Judging, base: str, head: str) -> str:
    """The readers' section for base..head (git reads only)."""
    changes = plain.changes(ctx.tree, base, head)
    return render(_find(ctx, paths, judging, Heads(base, head, changes, None)).facts)


def judge_head(  # noqa: PLR0917 - verify's own inputs, passed on
    ctx: Context,
    paths: Paths,
    judging: Judging,
    heads: Heads,
    setup: CommandResult,
    test: CommandResult,
) -> Judged:
    """The spec-tests, judges-config and suppressions checks of `heads.head` (whose test run
    is `test`, its report `heads.report`); the config runs wait for a passed setup."""
    named = spec_tests_check(judging.spec, heads.report, test)
    found = _find(ctx, paths, judging, heads)
    open_config = [c for c in found.config if c.key not in judging.accepted]
    if not setup.ok:
        held_back = CheckResult("judges-config", Outcome.SKIPPED, "held back: setup did not pass")
        return Judged((named, held_back), (), render(found.facts))
    config, held = config_check(ctx, paths, judging.spec, heads, open_config)
    if heads.tests_only:
        why = "tests only: stands from the verified head"
        return Judged(
            (named, config, CheckResult(SUPPRESSIONS, Outcome.SKIPPED, why)),
            held,
            render(found.facts),
        )
    marks, blocked = _suppression_check(found.suppressions, judging)
    return Judged((named, config, marks), (*held, *blocked), render(found.facts))
