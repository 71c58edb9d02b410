"""The configuration model: one TOML file per target repository, kept outside it."""

from __future__ import annotations

import re
from enum import StrEnum
from pathlib import PurePath
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from conveyor.core.migrate_commands import MigrateCommands

SLUG = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9_.-]+$")


class Strict(BaseModel):
    """A config section: unknown keys are errors and values never change after load."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Role(StrEnum):
    """Who a session is working as; budgets and agents are set per role."""

    TRIAGE = "triage"
    SPEC = "spec"
    IMPLEMENT = "implement"
    REVIEW = "review"
    AGGREGATE = "aggregate"
    FIX = "fix"
    REREVIEW = "rereview"
    CHECK_FIX = "check_fix"
    ACCEPT = "accept"
    SECURITY = "security"
    RESOLVER = "resolver"


class ForgeConfig(Strict):
    """Which forge to talk to: GitHub, or the embedded forge (`local`).

    `local` only changes defaults; the client and its code path are the same.
    """

    kind: Literal["github", "local"] = "github"
    api_url: str = "https://api.github.com"

    @field_validator("api_url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            msg = f"expected an http:// or https:// URL, got {value!r}"
            raise ValueError(msg)
        return value.rstrip("/")

    @model_validator(mode="before")
    @classmethod
    def _local_needs_url(cls, data: object) -> object:
        # The embedded forge has no well-known address: falling back to
        # api.github.com would send the local token to GitHub.
        if isinstance(data, dict) and data.get("kind") == "local" and "api_url" not in data:
            msg = 'kind = "local" needs api_url (the embedded forge\'s URL)'
            raise ValueError(msg)
        return data


class AppAuth(Strict):
    """GitHub App credentials: the pipeline acts as `SLUG[bot]`."""

    id: int
    private_key_file: str
    installation_id: int
    slug: str


class AccountConfig(Strict):
    """The pipeline's own account and how to get its token (exactly one way)."""

    login: str
    token_env: str | None = None
    token_file: str | None = None
    app: AppAuth | None = None

    @model_validator(mode="after")
    def _one_token_source(self) -> AccountConfig:
        given = [n for n in ("token_env", "token_file", "app") if getattr(self, n) is not None]
        if len(given) != 1:
            msg = (
                "expected exactly one of token_env, token_file or app, "
                f"got {', '.join(given) or 'none'}"
            )
            raise ValueError(msg)
        return self


class Commands(MigrateCommands, Strict):
    """Commands run in the checkout with the sessions' environment; None means skip."""

    setup: str | None = None
    test: str
    lint: str | None = None
    typecheck: str | None = None
    teardown: str | None = None
    lockfile: str | None = None
    timeout_seconds: Annotated[int, Field(gt=0)] = 1800
    # Setup runs once per repository and dependency files; trees reuse what it made.
    reuse_setup: bool = True
    # Commands keep pip's (and other tools') cache under $CONVEYOR_HOME and see the
    # user's pip configuration; false gives them only the job's empty HOME.
    shared_cache: bool = True


class Paths(Strict):
    """Glob lists that classify changed files."""

    tests: tuple[str, ...] = ("tests/**", "test/**", "**/test_*.py", "**/*_test.py")
    non_code: tuple[str, ...] = ("docs/**", "**/*.md", "**/*.rst", "**/*.txt", "LICENSE*")
    lockfiles: tuple[str, ...] = ()
    practices: tuple[str, ...] = ("AGENTS.md", "CONTRIBUTING.md")
    migrations: tuple[str, ...] = ("**/migrations/**",)


PositiveInt = Annotated[int, Field(ge=0)]
StageName = Literal[
    "triage", "spec", "implement", "review", "fix", "sync", "checks", "accept", "security", "merge"
]


class Limits(Strict):
    """Every bound of the pipeline, with the reference defaults (REQUIREMENTS §60)."""

    lease_hours: Annotated[float, Field(gt=0)] = 3
    claim_candidates: Annotated[int, Field(ge=1)] = 5
    claim_wait_seconds: tuple[float, float] = (5.0, 20.0)
    triage_questions: PositiveInt = 5
    triage_attempts: Annotated[int, Field(ge=1)] = 3
    spec_attempts: Annotated[int, Field(ge=1)] = 2
    spec_limit_chars: Annotated[int, Field(ge=1000)] = 12_000
    max_fix_rounds: PositiveInt = 2
    max_check_fixes: PositiveInt = 2
    max_disputes_per_finding: PositiveInt = 1
    max_syncs: PositiveInt = 3
    max_conflict_fixes: PositiveInt = 2
    max_continuations: PositiveInt = 1
    max_resumes: PositiveInt = 2
    reply_check_rounds: PositiveInt = 3
    issue_token_ceiling: PositiveInt = 2_000_000
    rebase_token_budget: PositiveInt = 500_000
    resolver_charge: PositiveInt = 100_000
    context_soft: Annotated[int, Field(gt=0)] = 150_000
    context_hard: Annotated[int, Field(gt=0)] = 175_000
    session_timeout_minutes: Annotated[float, Field(gt=0)] = 45
    heartbeat_silence_minutes: Annotated[float, Field(gt=0)] = 20
    ci_poll_seconds: Annotated[float, Field(gt=0)] = 30
    ci_timeout_minutes: Annotated[float, Field(gt=0)] = 30
    poll_seconds: Annotated[float, Field(gt=0)] = 60
    max_jobs: Annotated[int, Field(ge=1)] = 2
    readers_per_stage: Annotated[int, Field(ge=1)] = 2
    writers_per_stage: Annotated[int, Field(ge=1)] = 1
    # Per-stage caps overriding readers_per_stage / writers_per_stage (merge uses the
    # writers' cap); 0 means the orchestrator does not run that stage (ORC-2, ORC-17).
    stage_caps: dict[StageName, PositiveInt] = Field(default_factory=dict)
    tokens_per_hour: PositiveInt = 0
    merge_order: bool = True
    infra_retries: PositiveInt = 1

    @model_validator(mode="after")
    def _ordered(self) -> Limits:
        low, high = self.claim_wait_seconds
        if not 0 <= low <= high:
            msg = (
                f"claim_wait_seconds: expected [low, high] with 0 <= low <= high, got {[low, high]}"
            )
            raise ValueError(msg)
        if self.context_soft > self.context_hard:
            msg = "context_soft must not exceed context_hard"
            raise ValueError(msg)
        return self


class Budgets(Strict):
    """Tokens charged to a session of each role at launch (BUD-1)."""

    triage: PositiveInt = 50_000
    spec: PositiveInt = 300_000
    implement: PositiveInt = 150_000
    review: PositiveInt = 60_000
    aggregate: PositiveInt = 20_000
    fix: PositiveInt = 100_000
    rereview: PositiveInt = 40_000
    check_fix: PositiveInt = 100_000
    accept: PositiveInt = 60_000
    security: PositiveInt = 60_000
    resolver: PositiveInt = 100_000

    def for_role(self, role: Role) -> int:
        """The launch charge of one session of `role`."""
        value: int = getattr(self, role.value)
        return value


class Money(Strict):
    """Money budgets in US dollars; None turns a budget off."""

    per_session: Annotated[float, Field(gt=0)] | None = None
    per_issue: Annotated[float, Field(gt=0)] | None = None
    per_day: Annotated[float, Field(gt=0)] | None = None
    resume_percent: Annotated[float, Field(gt=0, le=100)] = 100


AgentName = Literal["claude", "codex", "opencode", "scripted"]


class AgentChoice(Strict):
    """Which agent CLI and model a role uses; `base_url` points its provider elsewhere
    (a gateway, a proxy, the test suite's fake model)."""

    agent: AgentName = "claude"
    model: str = "sonnet"
    fallback_model: str | None = None
    executable: str | None = None
    scenario: str | None = None
    base_url: Annotated[str, Field(pattern=r"^https?://")] | None = None

    @model_validator(mode="after")
    def _scenario_only_scripted(self) -> AgentChoice:
        if self.agent == "scripted" and not self.scenario:
            msg = 'agent = "scripted" needs `scenario` (a scenario file path)'
            raise ValueError(msg)
        return self


class Agents(Strict):
    """The default agent and per-role overrides."""

    default: AgentChoice = AgentChoice()
    roles: dict[Role, AgentChoice] = Field(default_factory=dict)

    def for_role(self, role: Role) -> AgentChoice:
        """The agent choice of `role`, falling back to the default."""
        return self.roles.get(role, self.default)


class Wiki(Strict):
    """The repository's wiki, cloned into each job's checkout (WT-7, CFG-6).

    `dir` is the folder inside the checkout (hidden from the code repository),
    `branch` the wiki's published branch (None: the wiki remote's HEAD), `url` its
    clone URL (None: the forge's `NAME.wiki.git`).
    """

    dir: str = "wiki"
    branch: str | None = None
    url: str | None = None

    @field_validator("dir")
    @classmethod
    def _one_folder(cls, value: str) -> str:
        if not re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.-]*", value) or value == ".git":
            msg = f"expected one folder name inside the checkout (like 'wiki'), got {value!r}"
            raise ValueError(msg)
        return value


class Config(Strict):
    """One target repository's configuration."""

    repo: str
    base: str = "main"
    home: str | None = None
    forge: ForgeConfig = ForgeConfig()
    account: AccountConfig
    allowed_users: tuple[str, ...]
    commands: Commands
    paths: Paths = Paths()
    limits: Limits = Limits()
    budgets: Budgets = Budgets()
    money: Money = Money()
    agents: Agents = Agents()
    passthrough_env: tuple[str, ...] = ()
    escalation_command: str | None = None
    wiki: bool | Wiki = False

    @field_validator("repo")
    @classmethod
    def _slug(cls, value: str) -> str:
        if not SLUG.match(value):
            msg = f"expected OWNER/NAME, got {value!r}"
            raise ValueError(msg)
        return value

    @field_validator("allowed_users")
    @classmethod
    def _some_users(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if not value:
            msg = "expected at least one trusted login (TRUST-1)"
            raise ValueError(msg)
        return value

    @property
    def owner(self) -> str:
        """The repository's owner."""
        return self.repo.split("/", 1)[0]

    @property
    def name(self) -> str:
        """The repository's name."""
        return self.repo.split("/", 1)[1]

    @property
    def wiki_settings(self) -> Wiki | None:
        """The wiki's settings when the wiki is turned on (`wiki = true` or a table)."""
        if isinstance(self.wiki, Wiki):
            return self.wiki
        return Wiki() if self.wiki else None

    @property
    def repo_dirname(self) -> str:
        """The folder name of this repository under `$CONVEYOR_HOME`."""
        return f"{self.owner}__{self.name}"


def home_path(config: Config, env_home: str | None, user_home: str) -> PurePath:
    """Resolve `$CONVEYOR_HOME`: config key, then environment, then the default."""
    if config.home:
        return PurePath(config.home)
    if env_home:
        return PurePath(env_home)
    return PurePath(user_home) / ".local" / "share" / "conveyor"
