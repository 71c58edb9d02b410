"""One lane of the claim-race test, run in its own process: sweep and claim until nothing is left."""

from __future__ import annotations

import itertools
import random
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

from conveyor.core.config import AccountConfig, Commands, Config, Limits
from conveyor.forge.github import token_forge
from conveyor.ops.claim import Won, claim
from conveyor.ops.context import OpContext
from conveyor.ops.sweep import sweep

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


def run_lane(url: str, slug: str, token: str, lane: str, barrier: Barrier, home: str) -> None:
    """Loop sweep → claim until no candidate is left; every wait first meets the other lanes.

    The barrier makes the lanes post before any of them lists the claims;
    once one lane is done it breaks the barrier and the rest just sleep.
    """
    rng = random.Random(lane)
    forge = token_forge(slug, token, base_url=url)
    config = race_config(slug)
    won: set[int] = set()

    def wait(seconds: float) -> None:
        try:
            barrier.wait(timeout=10)
        except threading.BrokenBarrierError:
            pass
        time.sleep(seconds)

    try:
        for round_ in itertools.count():
            ctx = OpContext(forge=forge, config=config, run_id=f"{lane}-s{round_}")
            now = datetime.now(UTC)
            candidates = [n for n in sweep(ctx, lane=lane, now=now).candidates if n not in won]
            if not candidates:
                return
            for number in candidates:
                folder = Path(home) / lane / f"issue-{number}"
                outcome = claim(
                    ctx, number, lane=lane, now=now, folder=folder, wait=wait, unit=rng.random()
                )
                if isinstance(outcome, Won):
                    won.add(number)
                    break
    finally:
        barrier.abort()
        forge.close()
