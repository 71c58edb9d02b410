"""One lane of the claim-race test, in its own process: sweep and claim until nothing is left."""

from __future__ import annotations

import contextlib
import itertools
import random
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

from conveyor.core.config import AccountConfig, Commands, Config, Limits
from conveyor.forge.github import token_forge
from conveyor.ops.forge.claim import Won, claim
from conveyor.ops.forge.context import OpContext
from conveyor.ops.forge.sweep import sweep

ACCOUNT = "conveyor-bot"


class Barrier(Protocol):
    """The part of `multiprocessing.Barrier` a lane uses."""

    def wait(self, timeout: float | None = None) -> int: ...
    def abort(self) -> None: ...


def race_config(slug: str) -> Config:
    """A config whose claim wait is short and whose sweep sees every issue."""
    return Config(
        repo=slug,
        account=AccountConfig(login=ACCOUNT, token_env="CONVEYOR_TEST_TOKEN"),
        allowed_users=("owner",),
        commands=Commands(test="true"),
        limits=Limits(claim_candidates=25, claim_wait_seconds=(0.05, 0.25)),
    )


@dataclass(frozen=True)
class LaneSpec:
    """Where a lane's forge is and who it is."""

    url: str
    slug: str
    token: str
    lane: str
    home: str


def run_lane(spec: LaneSpec, barrier: Barrier) -> None:
    """Loop sweep → claim the first candidate until none is left.

    The lanes meet at a barrier after sweeping and again inside the claim's
    wait, so they post before any of them lists the claims; once one lane is
    done it breaks the barrier and the rest carry on without it.
    """
    lane = spec.lane
    rng = random.Random(lane)
    forge = token_forge(spec.slug, spec.token, base_url=spec.url)
    config = race_config(spec.slug)
    won: set[int] = set()

    def meet() -> None:
        with contextlib.suppress(threading.BrokenBarrierError):
            barrier.wait(timeout=10)

    def wait(seconds: float) -> None:
        meet()
        time.sleep(seconds)

    try:
        for round_ in itertools.count():
            ctx = OpContext(forge=forge, config=config, run_id=f"{lane}-s{round_}")
            now = datetime.now(UTC)
            candidates = [n for n in sweep(ctx, lane=lane, now=now).candidates if n not in won]
            if not candidates:
                return
            meet()  # every lane has swept before any posts, so they aim at the same issue
            number = candidates[0]
            folder = Path(spec.home) / lane / f"issue-{number}"
            outcome = claim(
                ctx, number, lane=lane, now=now, folder=folder, wait=wait, unit=rng.random()
            )
            if isinstance(outcome, Won):
                won.add(number)
    finally:
        barrier.abort()
        forge.close()
