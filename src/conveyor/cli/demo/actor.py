"""The demo's trusted person: watches the forge and answers the pipeline's questions.

It reads only what a person reads (labels and comments) and acts only as
that person (a comment), on its own thread beside the orchestrator. It answers
a questions comment, not whatever the account wrote last: the pipeline's claim
comment goes up before the `agent:needs-info` label comes off, and a person
looking in between would otherwise answer the same question twice.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from conveyor.cli.demo.issues import tag_of
from conveyor.core.labels import Status
from conveyor.core.pickup import QUESTIONS
from conveyor.core.signatures import parse_marker
from conveyor.forge.errors import ForgeError
from conveyor.forge.protocol import Forge
from conveyor.forge.types import Comment


def open_question(comments: tuple[Comment, ...], person: str, account: str) -> int | None:
    """The account's latest questions comment when the person has not replied since; its id."""
    asked = [
        c.id
        for c in comments
        if c.author == account and (m := parse_marker(c.body)) is not None and m.kind == QUESTIONS
    ]
    last_person = max((c.id for c in comments if c.author == person), default=0)
    latest = max(asked, default=0)
    return latest if latest > last_person else None


@dataclass
class Actor:
    """Answers each waiting issue whose tag has an answer, once per question asked."""

    forge: Forge
    person: str
    account: str
    answers: Mapping[str, str]
    on_answer: Callable[[str, int], None] = lambda _tag, _number: None
    interval: float = 0.5
    answered: list[tuple[str, int]] = field(default_factory=list)
    _replied_to: set[int] = field(default_factory=set)  # questions comments answered
    _stop: threading.Event = field(default_factory=threading.Event)
    _lock: threading.Lock = field(default_factory=threading.Lock)  # the thread and the caller
    _thread: threading.Thread | None = None

    def pass_once(self) -> list[int]:
        """One look at the forge: answer what waits; returns the issues answered."""
        with self._lock:
            return self._look()

    def _look(self) -> list[int]:
        done = []
        for issue in self.forge.list_open_issues().issues:
            tag = tag_of(issue.title)
            if (
                tag is None
                or tag not in self.answers
                or Status.NEEDS_INFO.value not in issue.labels
            ):
                continue
            comments = self.forge.list_comments(issue.number).comments
            question = open_question(comments, self.person, self.account)
            if question is None or question in self._replied_to:
                continue
            self.on_answer(tag, issue.number)
            self.forge.create_comment(issue.number, self.answers[tag])
            self._replied_to.add(question)
            self.answered.append((tag, issue.number))
            done.append(issue.number)
        return done

    def start(self) -> None:
        """Watch on a daemon thread until `stop`."""
        self._thread = threading.Thread(target=self._watch, name="demo-actor", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop watching and wait for the thread."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def _watch(self) -> None:
        while not self._stop.wait(self.interval):
            with contextlib.suppress(ForgeError, OSError):  # a failed look: retried next time
                self.pass_once()
