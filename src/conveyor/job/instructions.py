"""The repository's instructions for a job's sessions, copied from the base branch.

At the start of a job whose sessions read the practices (the spec writer, the implementer,
the review, the fixers), the instruction files that apply (`core/instructions.py`) are read
from the base branch as the job fetched it, never from the issue branch an agent writes,
and copied into the job folder, which sessions may read and not write; prompts name the
copies. Git runs with no configuration (`git/plain.py`) and reads through the job's keep:
nothing in the checkout's own `.git` (the agent's) is believed, its refs included. The job
records which files it applied in `job.json` and as an `instructions` event.
"""

from __future__ import annotations

from pathlib import Path

from conveyor.core.instructions import Instruction, instructions_for, is_candidate
from conveyor.core.state import Stage
from conveyor.git import plain
from conveyor.job.context import JobContext
from conveyor.job.roles import JobRole

FOLDER = "instructions"
MAX_BYTES = 32_000  # of one file: a longer one is cut, with a line saying so
MAX_READ = 200  # candidate files read from the base's tree
# The stages whose sessions read the practices (TRI-11: not triage; ACC-1: not accept).
READERS_OF_PRACTICES = frozenset(
    {Stage.SPEC, Stage.IMPLEMENT, Stage.REVIEW, Stage.FIX, Stage.CHECKS}
)


def take_instructions(ctx: JobContext) -> tuple[str, ...]:
    """Copy the instructions that apply into the job folder; how prompts name each copy."""
    if ctx.what.stage not in READERS_OF_PRACTICES:
        return ()
    checkout = plain.Tree.of(ctx.where.checkout, ctx.where.git.git_dir)
    base = plain.git(
        checkout, "rev-parse", "--verify", f"refs/remotes/origin/{ctx.what.base}^{{commit}}"
    )
    base_sha = base.decode().strip()
    listed = plain.git(checkout, "ls-tree", "-r", "--name-only", "-z", base_sha)
    practices = ctx.what.config.paths.practices
    names = [p for p in listed.decode(errors="replace").split("\0") if p]
    candidates = [p for p in names if is_candidate(p, practices)][:MAX_READ]
    texts = {p: _text(checkout, base_sha, p) for p in candidates}
    changed = None if ctx.live.role is JobRole.WRITER else _changed(checkout, base_sha)
    chosen = instructions_for(texts, changed, practices)
    folder = ctx.where.job_dir / FOLDER
    for item in chosen:
        target = folder / item.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(texts[item.path], encoding="utf-8")
    paths = [i.path for i in chosen]
    ctx.live.job_file.set_instructions(paths)
    ctx.live.events.emit("instructions", base_sha=base_sha, paths=paths)
    return tuple(_shown(folder, item, ctx.what.base) for item in chosen)


def _text(checkout: plain.Tree, sha: str, path: str) -> str:
    data = plain.blob(checkout, sha, path) or b""
    text = data[:MAX_BYTES].decode("utf-8", errors="replace")
    if len(data) > MAX_BYTES:
        cut = f"this file has {len(data):,} bytes; the first {MAX_BYTES:,} are above"
        text += f"\n\n[Cut by Conveyor: {cut}.]\n"
    return text


def _changed(checkout: plain.Tree, base_sha: str) -> tuple[str, ...]:
    """The paths the branch changes since it left the base (what a reader judges)."""
    head = plain.head(checkout)
    return tuple(
        c.path for c in plain.changes(checkout, plain.merge_base(checkout, base_sha, head), head)
    )


def _shown(folder: Path, item: Instruction, base: str) -> str:
    """How a prompt names one copy: where to read it, what it is, where it applies."""
    scope = f", for {item.scope}" if item.scope else ""
    return f"`{folder / item.path}` (`{item.path}` on `{base}`{scope})"
