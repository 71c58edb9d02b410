"""The spec check's proof that the spec writer's tests fail before the fix (SPEC-77, CHK-17).

When the commit check passes, the new tests were seen failing at the spec's head, where no
fix exists yet (SPEC-83), and the suite passing with them put back (SPEC-84). That fact is
kept as a file named by what it is about: the start's tree, the setup and test commands,
and every changed test file's content. verify's fails-before-fix asks for it with its own
base and head: the same tree and the same test files (none added, changed or deleted by
the implementer or a fix round) mean its run would prove nothing new, so it is skipped.
Anything else (a moved base, a restacked prerequisite, another test file, no file at all)
finds no proof and fails-before-fix runs as before. The file is a cache of a fact, like
the base failures beside it: losing it costs one run, never a wrong skip.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from conveyor.git import plain
from conveyor.verify.context import Context

FOLDER = "spec-proofs"


def _digest(ctx: Context, head: str, tests: Iterable[str]) -> str:
    """One hash of the test files' paths and their content at `head` (deleted: none)."""
    total = hashlib.sha256()
    for path in sorted(set(tests)):
        data = plain.blob(ctx.tree, head, path)
        content = b"-" if data is None else b"+" + hashlib.sha256(data).digest()
        total.update(path.encode("utf-8", errors="surrogateescape") + b"\0" + content + b"\0")
    return total.hexdigest()


def _proof_file(ctx: Context, base: str, head: str, tests: Iterable[str]) -> Path | None:
    if ctx.baselines_dir is None:
        return None
    tree = plain.git(ctx.tree, "rev-parse", "--verify", f"{base}^{{tree}}").decode().strip()
    commands = f"{ctx.commands.setup}\0{ctx.commands.test}".encode()
    command = hashlib.sha256(commands).hexdigest()[:12]
    digest = _digest(ctx, head, tests)[:32]
    return ctx.baselines_dir / FOLDER / f"{tree}-{command}-{digest}.json"


def save_spec_proof(ctx: Context, start: str, head: str, tests: Iterable[str]) -> None:
    """Keep that the spec check passed at `head` with `tests` changed since `start`."""
    tests = tuple(sorted(set(tests)))
    target = _proof_file(ctx, start, head, tests)
    if target is None or not tests:
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    record = {"start": start, "spec_head": head, "tests": list(tests)}
    fd, name = tempfile.mkstemp(dir=target.parent, prefix=".proof-")
    with os.fdopen(fd, "w") as out:
        json.dump(record, out)
    Path(name).replace(target)


def proved_by_spec(ctx: Context, base: str, head: str, tests: Iterable[str]) -> str | None:
    """The spec head whose check proved these very tests fail before the fix, or None."""
    tests = tuple(sorted(set(tests)))
    target = _proof_file(ctx, base, head, tests)
    if target is None or not tests or not target.is_file():
        return None
    try:
        record = json.loads(target.read_text())
        spec_head = str(record["spec_head"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return spec_head if record.get("tests") == list(tests) else None
