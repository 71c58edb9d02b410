"""Sessions started ahead: a launch takes how its own ended; closing answers the others."""

from __future__ import annotations

import threading

from conveyor.agents.process import SessionHandle
from conveyor.core.config import Role
from conveyor.core.session import SessionRole
from conveyor.job.alongside import Alongside
from conveyor.stages.effects import LaunchSession


def _launch(kind: str, attempt: int = 1) -> LaunchSession:
    return LaunchSession(kind, SessionRole.READER, Role.REVIEW, "review", "system", "task", attempt)


def test_a_launch_takes_its_own_and_closing_answers_the_ones_never_asked_for() -> None:
    """Each started session ends on its own thread; `take` answers the one asked for (its
    attempt may differ), `close` aborts and answers the rest, leaving out one that raised."""
    aborted: list[str] = []
    release = threading.Event()

    def run(launched: LaunchSession, handle: SessionHandle) -> str:
        if launched.kind == "review-broken":
            raise RuntimeError("the CLI would not start")
        if launched.kind == "review-scope":  # runs until `close` aborts it
            aborted.append(handle.events().get(timeout=5).kind)
        release.wait(5)
        return f"{launched.kind} ended"

    ahead: Alongside[str] = Alongside()
    kinds = ("review-tests", "review-scope", "review-broken")
    ahead.start(tuple((_launch(k), _launch(k)) for k in kinds), run)
    release.set()
    assert ahead.take(_launch("review-tests", attempt=2)) == "review-tests ended"
    assert ahead.take(_launch("review-other")) is None
    left = ahead.close()
    assert [(launch.kind, ended) for launch, ended in left] == [
        ("review-scope", "review-scope ended")
    ]
    assert aborted == ["abort"]
    assert ahead.close() == []
