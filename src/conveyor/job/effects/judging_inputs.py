"""What a head is held to beyond its commands, gathered for verify and for the readers' facts."""

from __future__ import annotations

from conveyor.core.state import IssueState
from conveyor.git import plain, rev_parse
from conveyor.job.effects.parts import JobPlace, JobSubject
from conveyor.verify.context import Context
from conveyor.verify.judges import Judging, read_facts

# The whole spec, when it was too long for the state (`job/effects/writes.py`'s SPEC_MD).
SPEC_MD = "spec.md"


def _spec_text(where: JobPlace, state: IssueState) -> str:
    if state.spec is not None:
        return state.spec
    try:
        return (where.run_dir / SPEC_MD).read_text(encoding="utf-8")
    except OSError:
        return ""


def judging_of(what: JobSubject, where: JobPlace, state: IssueState) -> Judging:
    """The spec's tests and config, the project's `[judges]`, the spec's text and what people
    accepted at a `checks-config` stop."""
    return Judging(
        spec=state.spec_tests,
        judges=what.config.judges,
        spec_text=_spec_text(where, state),
        accepted=frozenset(state.checks_accepted),
    )


def review_facts(what: JobSubject, where: JobPlace, state: IssueState, start_ref: str) -> str:
    """What the whole change (from the merge base with `start_ref` to HEAD) does to the
    checks, for the readers (git reads only)."""
    head = plain.head(where.tree)
    base = plain.merge_base(where.tree, rev_parse(where.git, start_ref), head)
    ctx = Context(
        where.checkout, what.config.commands, {}, where.job_dir / "logs", git_dir=where.git.git_dir
    )
    return read_facts(ctx, what.config.paths, judging_of(what, where, state), base, head)
