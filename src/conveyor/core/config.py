"""The configuration model: one TOML file per target repository, kept outside it.

Its sections live by concept in `config_terms` (shared terms), `config_forge` (forge and
account), `config_limits` (limits and budgets) and `config_sandbox` (the box); this
module holds the commands, paths, agents and wiki, and the whole `Config`, and is where
every section is imported from.
"""

from __future__ import annotations

import re
from pathlib import PurePath
from typing import Annotated, Any

from pydantic import (
    Field,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    field_validator,
    model_validator,
)

from conveyor.core.config_forge import AccountConfig, AppAuth, ForgeConfig
from conveyor.core.config_handover import Handover, Notify
from conveyor.core.config_intake import Intake
from conveyor.core.config_judges import Judges
from conveyor.core.config_limits import Budgets, Limits, Money
from conveyor.core.config_reviews import PrReviews, ReviewSettings
from conveyor.core.config_sandbox import Sandbox
from conveyor.core.config_sessions import Sessions
from conveyor.core.config_terms import (
    AgentName,
    PositiveInt,
    Role,
    StageName,
    Strict,
    validate_beside,
)
from conveyor.core.migrate_commands import MigrateCommands
from conveyor.core.trust import same_login

__all__ = [
    "AccountConfig",
    "AgentChoice",
    "AgentName",
    "Agents",
    "AppAuth",
    "Budgets",
    "Commands",
    "Config",
    "ForgeConfig",
    "Handover",
    "Intake",
    "Judges",
    "Limits",
    "Money",
    "Notify",
    "Paths",
    "PositiveInt",
    "PrReviews",
    "ReviewSettings",
    "Role",
    "Sandbox",
    "StageName",
    "Strict",
    "Wiki",
    "home_path",
    "repo_dirname",
    "repo_of_dirname",
]

SLUG = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9_.-]+$")


class Commands(MigrateCommands, Strict):
    """Commands run in the checkout with the sessions' environment; None means skip."""

    setup: str | None = None
    test: str
    # Runs given test files: `{tests}` is replaced with their paths (fails-before-fix).
    test_files: str | None = None
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

    @field_validator("test_files")
    @classmethod
    def _names_the_tests(cls, value: str | None) -> str | None:
        if value is not None and "{tests}" not in value:
            msg = "test_files must contain `{tests}`, where the test files' paths go"
            raise ValueError(msg)
        return value


class Paths(Strict):
    """Glob lists that classify changed files."""

    # Every ecosystem's test files (`core.ecosystems`): Python's, JavaScript's and
    # TypeScript's (`*.test.ts`, `*.spec.js`, `__tests__/`), Go's, Java's (`src/test/`).
    tests: tuple[str, ...] = (
        "tests/**",
        "test/**",
        "**/test_*.py",
        "**/*_test.py",
        "**/__tests__/**",
        "**/*.test.*",
        "**/*.spec.*",
        "**/*_test.go",
        "**/testdata/**",
        "src/test/**",
        "**/*_test.c",
        "**/*_test.cc",
        "**/*_test.cpp",
        "**/*_unittest.cc",
    )
    non_code: tuple[str, ...] = ("docs/**", "**/*.md", "**/*.rst", "**/*.txt", "LICENSE*")
    lockfiles: tuple[str, ...] = ()
    practices: tuple[str, ...] = ("AGENTS.md", "CONTRIBUTING.md")
    migrations: tuple[str, ...] = ("**/migrations/**",)


class AgentChoice(Strict):
    """Which agent CLI and model a role uses; `base_url` points its provider elsewhere
    (a gateway, a proxy, the test suite's fake model)."""

    agent: AgentName = "claude"
    model: str = "sonnet"
    fallback_model: str | None = None
    executable: str | None = None
    scenario: str | None = None
    base_url: Annotated[str, Field(pattern=r"^https?://")] | None = None

    @model_validator(mode="wrap")
    @classmethod
    def _scenario_only_scripted(cls, data: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        problem = None
        if isinstance(data, dict) and data.get("agent") == "scripted" and not data.get("scenario"):
            problem = 'agent = "scripted" needs `scenario` (a scenario file path)'
        return validate_beside(data, handler, problem)


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
    judges: Judges = Judges()
    limits: Limits = Limits()
    budgets: Budgets = Budgets()
    money: Money = Money()
    agents: Agents = Agents()
    passthrough_env: tuple[str, ...] = ()
    escalation_command: str | None = None
    wiki: bool | Wiki = False
    sandbox: Sandbox = Sandbox()
    intake: Intake = Intake()
    handover: Handover = Handover()
    notify: Notify = Notify()
    review: ReviewSettings = ReviewSettings()
    pr_reviews: PrReviews = PrReviews()
    sessions: Sessions = Sessions()

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

    @field_validator("intake")
    @classmethod
    def _narrows_trust(cls, value: Intake, info: ValidationInfo) -> Intake:
        # The filter narrows the trusted users; it never widens them (TRUST-2 stays the gate).
        trusted = {login.casefold() for login in info.data.get("allowed_users", ())}
        strangers = [login for login in value.authors if login.casefold() not in trusted]
        if trusted and strangers:
            msg = (
                f"authors: {', '.join(strangers)} not in allowed_users; the intake filter only"
                " narrows who is trusted (add them to allowed_users first)"
            )
            raise ValueError(msg)
        return value

    @field_validator("handover")
    @classmethod
    def _not_the_author(cls, value: Handover, info: ValidationInfo) -> Handover:
        # GitHub refuses a review request to the PR's author, which is the pipeline's account.
        login = getattr(info.data.get("account"), "login", None)
        if login is not None and any(same_login(r, login) for r in value.reviewers):
            msg = f"reviewers: {login} opens the PRs and cannot be asked to review them"
            raise ValueError(msg)
        return value

    @field_validator("pr_reviews")
    @classmethod
    def _askable(cls, value: PrReviews, info: ValidationInfo) -> PrReviews:
        # GitHub cannot request a review from a GitHub App: on_request would never fire.
        account = info.data.get("account")
        if value.on_request and getattr(account, "app", None) is not None:
            msg = (
                "on_request: the account signs in as a GitHub App, and GitHub cannot request"
                " an App's review; use a user account's token, or the label"
            )
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
        return repo_dirname(self.repo)


def repo_dirname(repo: str) -> str:
    """A repository's folder name under `$CONVEYOR_HOME`: `owner/name` as `owner__name`."""
    return repo.replace("/", "__", 1)


def repo_of_dirname(dirname: str) -> str:
    """The `owner/name` of a folder `repo_dirname` named (an owner never holds `_`)."""
    return dirname.replace("__", "/", 1)


def home_path(config: Config, env_home: str | None, user_home: str) -> PurePath:
    """Resolve `$CONVEYOR_HOME`: config key, then environment, then the default."""
    if config.home:
        return PurePath(config.home)
    if env_home:
        return PurePath(env_home)
    return PurePath(user_home) / ".local" / "share" / "conveyor"
