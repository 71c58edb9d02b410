"""Posting review results on the PR: each reviewer its own signed comment (REV-9, FIX-8)."""

from __future__ import annotations

from collections.abc import Iterable

from conveyor.core.redact import redact
from conveyor.core.signatures import Signature
from conveyor.forge.types import Comment
from conveyor.ops.forge.context import OpContext
from conveyor.ops.forge.post import post_comment


class NoPullRequest(RuntimeError):
    """A review result was to be posted on a PR the issue does not have (a bug upstream)."""


def post_on_pr(
    ctx: OpContext,
    pr: int | None,
    kind: str,
    text: str,
    *,
    signature: Signature,
    secrets: Iterable[str] = (),
) -> Comment:
    """Post (once per run and kind) a signed, redacted comment on the issue's PR.

    Each reviewer signs with its own role and posts its own kind (`review-scope`, `nits`,
    `fix-1`, …), so a re-run of the same job edits its earlier copy instead of adding one.
    """
    if pr is None:
        msg = f"cannot post {kind!r}: the issue has no pull request recorded in its state"
        raise NoPullRequest(msg)
    return post_comment(ctx, pr, kind, redact(text, secrets), signature)
