"""The verify op (no model): verify the checkout's head and report failures redacted."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from conveyor.core.config import Commands, Paths
from conveyor.core.redact import redact
from conveyor.core.verify import VerifyResult
from conveyor.git import Repo, rev_parse
from conveyor.verify import verify
from conveyor.verify.judges import Judging
from conveyor.verify.run import SharedDirs

TAIL_CHARS = 1500


def verify_head(
    repo: Repo,
    commands: Commands,
    env: Mapping[str, str],
    paths: Paths,
    *,
    base_ref: str,
    logs_dir: Path,
    work_dir: Path | None = None,
    tests_only: bool = False,
    heartbeat: Callable[[], None] | None = None,
    shared: SharedDirs | None = None,
    judging: Judging | None = None,
) -> VerifyResult:
    """Run verify at the checkout's HEAD against `base_ref` (e.g. `refs/remotes/origin/main`)."""
    return verify(
        repo.path,
        commands,
        env,
        paths,
        base_sha=rev_parse(repo, base_ref),
        head_sha=rev_parse(repo, "HEAD"),
        logs_dir=logs_dir,
        tests_only=tests_only,
        work_dir=work_dir,
        heartbeat=heartbeat,
        shared=shared,
        judging=judging,
        git_dir=repo.git_dir,
    )


def failure_report(result: VerifyResult, secrets: Iterable[str]) -> tuple[str, ...]:
    """One entry per failure, with the failing command's log tail, redacted of the token."""
    secrets = tuple(secrets)
    lines: list[str] = []
    for line in result.failures():
        name = line.split(":", 1)[0]
        command = result.failed_run(name)
        tail = command.tail[-TAIL_CHARS:].strip() if command is not None else ""
        text = f"{line}\n\n```\n{tail}\n```" if tail else line
        lines.append(redact(text, secrets))
    return tuple(lines)


# The judges' checks a person may accept at a checks-config stop (`verify.judges`).
ACCEPTABLE = ("judges-config", "suppressions")


def acceptable(result: VerifyResult) -> tuple[str, ...]:
    """What a person may accept, when every failure is one of the judges' acceptable checks;
    () when anything else fails too (that is fixed first)."""
    if result.passed or not result.held:
        return ()
    failing = [c.name for c in result.commands if not c.ok]
    failing += [c.name for c in result.checks if not c.ok]
    return result.held if all(name in ACCEPTABLE for name in failing) else ()
