"""A stage job's role (JB-2), read from the stage registry, and each role's network list (JB-7)."""

from __future__ import annotations

from conveyor.core.config import Role
from conveyor.core.state import Stage
from conveyor.stages.registry import definition
from conveyor.stages.stage_def import JobRole

__all__ = ["JobRole", "agent_role_of", "network_list", "role_of"]

MODEL_HOSTS: dict[str, str] = {
    "claude": "api.anthropic.com",
    "scripted": "api.anthropic.com",
    "codex": "api.openai.com",
    "opencode": "api.anthropic.com",
}
PACKAGE_REGISTRY = "pypi.org"


def role_of(stage: Stage) -> JobRole:
    """The role of a stage's job; `done` has no job; a person's PR's review only reads."""
    if stage is Stage.PR_REVIEW:
        return JobRole.READER
    return definition(stage).job_role


def agent_role_of(stage: Stage) -> Role:
    """The config role whose agent and budget a stage's main session uses; it also names
    the `Pipeline-Agent:` trailer of the stage's commits."""
    if stage is Stage.PR_REVIEW:
        return Role.REVIEW
    return definition(stage).agent_role


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
