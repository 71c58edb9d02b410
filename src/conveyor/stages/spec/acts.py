"""What each spec phase asks for, or which end it is (SPEC-51, SPEC-99..114, SPEC-134)."""

from __future__ import annotations

import json

from conveyor.core.config import Role
from conveyor.core.replies import SpecReply
from conveyor.core.state import Stage
from conveyor.core.stops import StopCode
from conveyor.stages import launch
from conveyor.stages.effects import (
    ChargeBudget,
    CheckSpecCommits,
    Effect,
    OpenDraftPr,
    PostComment,
    PushBranch,
    ResetBranch,
    RunTests,
    SaveSpecFile,
    SettlePr,
)
from conveyor.stages.prompts import spec as prompt
from conveyor.stages.spec.table import EXITS, Event, Phase, Spec
from conveyor.stages.spec_text import lists_wiki_updates, strip_end_marker
from conveyor.stages.step import (
    Asked,
    End,
    SavedAt,
    Split,
    SplitPart,
    Stopped,
    Table,
    deferred,
    over_budget,
)

FAILED_TWICE = "the spec writer failed twice"
SPEC_HEADING = "## Spec"


def reply_of(run: Spec) -> SpecReply:
    """The accepted reply a decision phase acts on."""
    assert run.reply is not None, f"phase {run.phase.value!r} needs the spec writer's reply"
    return run.reply


def spec_text(run: Spec) -> str:
    """The spec as saved and posted: without its end marker (SPEC-39)."""
    return strip_end_marker(reply_of(run).spec)


def interfaces_json(reply: SpecReply) -> str:
    """The interfaces as the state keeps them (JSON text)."""
    return json.dumps([i.model_dump() for i in reply.interfaces], ensure_ascii=False)


def _launch(run: Spec) -> Effect:
    split_reason = None
    if run.state.split_suggested:
        split_reason = (run.state.plan or "").rpartition("Split suggested:")[2].strip() or "yes"
    text = prompt.render(
        prompt.SpecData(
            **launch.frame(run.inputs),
            practices=run.inputs.instructions,
            test_globs=run.inputs.paths.tests,
            depth=run.state.depth,
            plan=run.state.plan,
            split_reason=split_reason,
            spec_so_far=run.state.spec,
            continuation=run.continuation,
            findings=run.findings,
            wiki_dir=run.inputs.wiki_dir,
        )
    )
    return launch.writer("spec", Role.SPEC, text, run)


def _check(run: Spec) -> Effect:
    reply = reply_of(run)
    return CheckSpecCommits(
        run.start_sha,
        tuple(reply.interfaces),
        reply.no_tests_reason,
        reply.wiki_only,
        lists_wiki_updates(reply.spec),
    )


def _to_implement(run: Spec) -> End:
    reply = reply_of(run)
    text = spec_text(run)
    long = len(text) > run.inputs.limits.spec_limit_chars
    state = run.state.model_copy(
        update={
            "spec": None if long else text,
            "spec_file": run.inputs.spec_file if long else None,
            "interfaces": interfaces_json(reply),
            "no_tests_reason": reply.no_tests_reason,
            "spec_tests": run.spec_tests,
            "pr": run.pr,
            "head_sha": run.spec_sha,
            "implemented": False,
            "wiki_only": False,
        }
    )
    return SavedAt(Stage.IMPLEMENT, state)


def _wiki_only(run: Spec) -> End:
    """A wiki-only spec: its pages are the change; review next, with no PR (FLOW-10)."""
    reply = reply_of(run)
    text = spec_text(run)
    long = len(text) > run.inputs.limits.spec_limit_chars
    state = run.state.model_copy(
        update={
            "spec": None if long else text,
            "spec_file": run.inputs.spec_file if long else None,
            "interfaces": interfaces_json(reply),
            "no_tests_reason": reply.no_tests_reason,
            "pr": run.pr,
            "pr_closed": run.pr is not None,
            "head_sha": None,
            "implemented": True,
            "wiki_only": True,
            "flows": "wiki",
        }
    )
    return SavedAt(Stage.REVIEW, state)


def _reset(run: Spec) -> Effect:
    return ResetBranch(run.start_sha, run.start_wiki_sha)


def _asked(run: Spec) -> End:
    state = run.state.model_copy(update={"stage": Stage.TRIAGE, "spec": spec_text(run)})
    return Asked(tuple(reply_of(run).questions), state)


def _split(run: Spec) -> End:
    parts = tuple(
        SplitPart(p.title.strip(), p.body, tuple(p.after)) for p in reply_of(run).sub_issues
    )
    return Split(parts, run.state)


def _stopped(code: StopCode, reason: str, run: Spec, details: str = "") -> End:
    return Stopped(code, reason, run.state, details)


def _failed_twice(run: Spec) -> End:
    details = "\n".join([run.note, *(f"- {f}" for f in run.findings)])
    return _stopped(StopCode.ERROR, FAILED_TWICE, run, details)


TABLE: Table[Phase, Event, Spec] = Table(
    name="spec",
    start=Phase.START,
    exits=EXITS,
    effects={
        Phase.CHARGE: lambda run: ChargeBudget(Role.SPEC),
        Phase.LAUNCH: _launch,
        Phase.CHECK_COMMITS: _check,
        Phase.SAVE_SPEC_FILE: lambda run: SaveSpecFile(spec_text(run)),
        Phase.POST_SPEC: lambda run: PostComment(
            "spec", "spec", f"{SPEC_HEADING}\n\n{spec_text(run)}", per_issue=True
        ),
        Phase.OPEN_PR: lambda run: OpenDraftPr(),
        Phase.PUSH_WIKI: lambda run: PushBranch(run.start_sha),
        Phase.CLOSE_PR: lambda run: SettlePr("close"),
        Phase.RESET_ASK: _reset,
        Phase.RESET_SPLIT: _reset,
        Phase.RESET_REFUSED: _reset,
        Phase.CONFIRM_NO_WORK: lambda run: RunTests(),
        Phase.RESET_NO_WORK: _reset,
    },
    ends={
        Phase.TO_IMPLEMENT: _to_implement,
        Phase.WIKI_ONLY: _wiki_only,
        Phase.ASKED: _asked,
        Phase.SPLIT: _split,
        Phase.SPLIT_REFUSED: lambda run: _stopped(
            StopCode.TOO_LARGE, "a sub-issue can't split again", run, reply_of(run).summary
        ),
        Phase.NO_WORK: lambda run: _stopped(
            StopCode.NO_WORK,
            "the spec writer found that the behaviour already holds on the base",
            run,
            spec_text(run),
        ),
        Phase.FAILED_TWICE: _failed_twice,
        Phase.TOO_LARGE: lambda run: _stopped(
            StopCode.TOO_LARGE,
            "the spec writer handed off more than max_continuations times; split the issue",
            run,
        ),
        Phase.OVER_BUDGET: over_budget,
        Phase.DEFERRED: deferred,
        Phase.ENVIRONMENT: lambda run: _stopped(
            StopCode.ENVIRONMENT,
            "the commit check could not run the tests (not charged to the spec writer)",
            run,
            run.note,
        ),
    },
)
