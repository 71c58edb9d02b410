"""The stage-to-role table (JB-2) and each role's network list (JB-7)."""

from __future__ import annotations

from enum import StrEnum

from conveyor.core.config import Role
from conveyor.core.state import Stage


class JobRole(StrEnum):
    """What a stage job may do: readers only read, writers push, the merger merges."""

    READER = "reader"
    WRITER = "writer"
    MERGER = "merger"


STAGE_ROLES: dict[Stage, JobRole] = {
    Stage.TRIAGE: JobRole.READER,
    Stage.SPEC: JobRole.WRITER,
    Stage.IMPLEMENT: JobRole.WRITER,
    Stage.REVIEW: JobRole.READER,
    Stage.FIX: JobRole.WRITER,
    Stage.SYNC: JobRole.WRITER,
    Stage.CHECKS: JobRole.WRITER,
    Stage.ACCEPT: JobRole.READER,
    Stage.SECURITY: JobRole.READER,
    Stage.MERGE: JobRole.MERGER,
}

MODEL_HOSTS: dict[str, str] = {
    "claude": "api.anthropic.com",
    "scripted": "api.anthropic.com",
    "codex": "api.openai.com",
    "opencode": "api.anthropic.com",
}
PACKAGE_REGISTRY = "pypi.org"


def role_of(stage: Stage) -> JobRole:
    """The role of a stage's job; `done` has no job."""
    try:
        return STAGE_ROLES[stage]
    except KeyError:
        msg = f"stage {stage.value!r} has no job"
        raise ValueError(msg) from None


def network_list(role: JobRole, agent: str, api_url: str) -> tuple[str, ...]:
    """The hosts a role's job may reach (recorded, not enforced: JB-7).

    Reader: the model API; writer: also the package registry; merger: the forge API only.
    """
    if role is JobRole.MERGER:
        return (_host(api_url),)
    hosts = [MODEL_HOSTS.get(agent, "api.anthropic.com")]
    if role is JobRole.WRITER:
        hosts.append(PACKAGE_REGISTRY)
    return tuple(hosts)


def _host(url: str) -> str:
    rest = url.split("://", 1)[-1]
    return rest.split("/", 1)[0]


# The config role whose agent and budget a stage's main session uses; also names the
# `Pipeline-Agent:` trailer of the stage's commits.
STAGE_AGENT_ROLES: dict[Stage, Role] = {
    Stage.TRIAGE: Role.TRIAGE,
    Stage.SPEC: Role.SPEC,
    Stage.IMPLEMENT: Role.IMPLEMENT,
    Stage.REVIEW: Role.REVIEW,
    Stage.FIX: Role.FIX,
    Stage.SYNC: Role.RESOLVER,
    Stage.CHECKS: Role.CHECK_FIX,
    Stage.ACCEPT: Role.ACCEPT,
    Stage.SECURITY: Role.SECURITY,
    Stage.MERGE: Role.RESOLVER,
}
