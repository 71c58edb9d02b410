"""Each agent CLI's facts, one row per backend: the one place a backend's name, hosts,
variables, login files and hints are written.

The code that drives a CLI is `agents/backends/<name>.py`, listed in
`agents/backends/registry.py`; a unit test keeps the two and `BackendName` the same set.
Everything else reads this table: the session's environment and HOME
(`agents/environment.py`), the box's allowlist and `--print-boundary`'s network
(`agents/boxed.py`), the install hint, `doctor`'s sign-in check, the demo's fake model.
Adding a backend is a row here, its module, and its line in the registry.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Final, Literal, get_args

BackendName = Literal["claude", "codex", "opencode"]
SCRIPTED: Final = "scripted"
# The scripted agent (`agents/scripted`) speaks claude's stream-json.
SCRIPTED_BACKEND: BackendName = "claude"
_NO_VARS: Mapping[str, str] = MappingProxyType({})
_NO_PROVIDERS: Mapping[str, tuple[str, ...]] = MappingProxyType({})


@dataclass(frozen=True)
class BackendFacts:
    """One agent CLI, as data.

    `hosts`: its model API hosts; with `providers`, the hosts follow the provider a
    `provider/model` name starts with (else `default_provider`). `env_prefixes`: the
    provider variables a session gets. `auth_files`: login files under the owner's HOME,
    copied to the same place in the session's HOME; `state_var`: the variable naming the
    CLI's own state folder (default `state_default` under HOME), whose `state_files` are
    copied into the session's `<name>-home`. `base_url_var`: the variable its base URL goes
    in, where it takes one. `status_args`: its own sign-in status command (`doctor`), run
    with `status_env`. `demo_model`: a model name it accepts, for the demo's fake model, run
    with `demo_env`. `reader_read_only`: its own sandbox kept a reader's checkout read-only,
    which cannot nest in the box, so the box does.
    """

    name: BackendName
    install: str
    sign_in: str
    status_args: tuple[str, ...]
    demo_model: str
    hosts: tuple[str, ...] = ()
    providers: Mapping[str, tuple[str, ...]] = field(default_factory=lambda: _NO_PROVIDERS)
    default_provider: str = ""
    env_prefixes: tuple[str, ...] = ()
    auth_files: tuple[str, ...] = ()
    state_var: str | None = None
    state_default: str = ""
    state_files: tuple[str, ...] = ()
    base_url_var: str | None = None
    status_env: Mapping[str, str] = field(default_factory=lambda: _NO_VARS)
    demo_env: Mapping[str, str] = field(default_factory=lambda: _NO_VARS)
    reader_read_only: bool = False

    def provider_of(self, model: str) -> str:
        """The provider a model name selects (`provider/model`), else the default one."""
        return model.split("/", 1)[0] if "/" in model else self.default_provider

    def model_hosts(self, model: str) -> tuple[str, ...]:
        """The model API hosts a session of this CLI with `model` reaches."""
        if self.providers:
            return self.providers.get(self.provider_of(model), ())
        return self.hosts

    @property
    def state_dir(self) -> str:
        """The session folder's entry holding the CLI's own state (`state_var` points there)."""
        return f"{self.name}-home"


ANTHROPIC = "api.anthropic.com"
OPENAI = "api.openai.com"
OPENCODE_QUIET = {"OPENCODE_DISABLE_MODELS_FETCH": "1", "OPENCODE_DISABLE_AUTOUPDATE": "1"}
ROWS: tuple[BackendFacts, ...] = (
    BackendFacts(
        name="claude",
        install="npm install -g @anthropic-ai/claude-code",
        sign_in="run `claude auth login`, or set ANTHROPIC_API_KEY",
        status_args=("auth", "status", "--json"),
        demo_model="claude-sonnet-4-5",
        hosts=(ANTHROPIC,),
        env_prefixes=("ANTHROPIC_", "CLAUDE_CODE_"),
        auth_files=(".claude/.credentials.json",),
        base_url_var="ANTHROPIC_BASE_URL",
        demo_env={"ANTHROPIC_API_KEY": "fake-anthropic-key"},
    ),
    BackendFacts(
        name="codex",
        install="npm install -g @openai/codex",
        sign_in="run `codex login`, or `printenv OPENAI_API_KEY | codex login --with-api-key`",
        status_args=("login", "status"),
        demo_model="fake-model",
        # chatgpt.com serves a ChatGPT sign-in's requests, auth.openai.com refreshes its token.
        hosts=(OPENAI, "chatgpt.com", "auth.openai.com"),
        env_prefixes=("OPENAI_",),
        state_var="CODEX_HOME",
        state_default=".codex",
        state_files=("auth.json",),
        demo_env={"OPENAI_API_KEY": "fake-openai-key"},
        reader_read_only=True,
    ),
    BackendFacts(
        name="opencode",
        install="npm install -g opencode-ai",
        sign_in="run `opencode auth login`, or set the provider's API key variable",
        status_args=("auth", "list"),
        demo_model="anthropic/claude-sonnet-4-5",
        providers={
            "anthropic": (ANTHROPIC,),
            "openai": (OPENAI,),
            "openrouter": ("openrouter.ai",),
            "google": ("generativelanguage.googleapis.com",),
        },
        default_provider="anthropic",
        env_prefixes=("ANTHROPIC_", "OPENAI_", "OPENROUTER_", "OPENCODE_"),
        auth_files=(".local/share/opencode/auth.json",),
        # listing credentials needs no model list nor update check
        status_env=OPENCODE_QUIET,
        # offline and quiet: no model list, no update check, no share, no LSP download
        demo_env={
            "ANTHROPIC_API_KEY": "fake-anthropic-key",
            **OPENCODE_QUIET,
            "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
            "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
            "OPENCODE_DISABLE_SHARE": "1",
        },
    ),
)
FACTS: Mapping[BackendName, BackendFacts] = MappingProxyType({row.name: row for row in ROWS})
NAMES: tuple[BackendName, ...] = get_args(BackendName)
_BY_NAME: Mapping[str, BackendFacts] = MappingProxyType({row.name: row for row in ROWS})


def facts_of(name: str) -> BackendFacts | None:
    """The row of a backend name, or None for a name that is no backend (a command's `""`)."""
    return _BY_NAME.get(name)


def backend_of(agent: str) -> str:
    """The CLI an agent choice runs: the scripted agent speaks claude's protocol."""
    return SCRIPTED_BACKEND if agent == SCRIPTED else agent


def model_hosts(backend: str, model: str) -> tuple[str, ...]:
    """The model API hosts of one backend's CLI with `model` (none for an unknown name)."""
    row = facts_of(backend)
    return () if row is None else row.model_hosts(model)
