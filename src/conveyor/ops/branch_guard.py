"""The branch guard: a PR head on the forge that is not the recorded head stops the issue."""

from __future__ import annotations

from dataclasses import dataclass

from conveyor.forge.protocol import Forge


@dataclass(frozen=True)
class Guarded:
    """Whether the forge still holds the recorded head; `findings` say what differs."""

    ok: bool
    forge_head: str | None
    findings: tuple[str, ...] = ()


def guard_branch(forge: Forge, pr: int | None, branch: str, recorded: str | None) -> Guarded:
    """Compare the PR's head (or the branch, before a PR) with `recorded`; nothing is written.

    A person pushing to the PR branch (or force-pushing it) makes the heads differ:
    the issue stops `branch-changed` and the pipeline never overwrites that push.
    """
    head: str | None
    if pr is not None:
        head = forge.get_pr(pr).head_sha
    else:
        found = forge.get_branch(branch)
        head = found.sha if found else None
    if recorded is None or head == recorded:
        return Guarded(True, head)
    where = f"PR #{pr}" if pr is not None else f"branch {branch}"
    found_text = head or "no branch"
    return Guarded(
        False,
        head,
        (
            f"{where} is at {found_text} on the forge, but the pipeline recorded {recorded}; "
            "someone else changed it. Nothing was overwritten.",
        ),
    )
