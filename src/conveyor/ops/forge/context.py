"""What every intake op needs: the forge, the configuration, who signs, and the trust rule."""

from __future__ import annotations

from dataclasses import dataclass, field

from conveyor.core.config import Config
from conveyor.core.signatures import Signature
from conveyor.core.trust import Trust, build_trust
from conveyor.forge.job_view import JobForge
from conveyor.forge.protocol import Forge
from conveyor.forge.types import Comment

COORDINATOR = "coordinator"


@dataclass(frozen=True)
class OpContext:
    """One run's view of one repository: the forge client, config and run id.

    `agent` and `model` name who signs the coordinator's own comments; a
    session's comments pass their own `Signature` to `post_comment`.
    """

    forge: Forge
    config: Config
    run_id: str
    agent: str = "conveyor"
    model: str = "none"
    _trust: list[Trust] = field(default_factory=list, repr=False, compare=False)

    @property
    def account(self) -> str:
        """The pipeline's own login."""
        return self.config.account.login

    def signature(self, role: str = COORDINATOR) -> Signature:
        """The signature of a comment this run posts as `role`."""
        return Signature(role, self.agent, self.model, self.run_id)

    def trust(self) -> Trust:
        """The trust rule, asking the forge once per run which allowed users collaborate."""
        if not self._trust:
            answers = {u: self.forge.is_collaborator(u) for u in self.config.allowed_users}
            self._trust.append(build_trust(self.account, self.config.allowed_users, answers))
        return self._trust[0]


def fetch_comments(ctx: OpContext, number: int, *, fresh: bool = False) -> tuple[Comment, ...]:
    """Every comment of an issue or PR, oldest first; `fresh` reads past a job's kept copy
    (with the issue, in one GraphQL read that says who last edited each text)."""
    if fresh and isinstance(ctx.forge, JobForge):
        ctx.forge.forget(number)
        return ctx.forge.read_issue_thread(number).comments
    return ctx.forge.list_comments(number).comments


def find_marked(comments: tuple[Comment, ...], ctx: OpContext, marker: str) -> Comment | None:
    """The account's earliest comment carrying `marker` (how ops find their earlier effects)."""
    for comment in sorted(comments, key=lambda c: c.id):
        if marker in comment.body and ctx.trust().pipeline(comment):
            return comment
    return None
