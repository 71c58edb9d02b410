"""The session environment is an allowlist that never carries a forge token (JB-4, JB-5)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from conveyor.agents.environment import BASE, FORGE_TOKENS, build_env, prepare_home

HOME = Path("/sessions/k/home")
GITCONFIG = Path("/jobs/j/gitconfig")
SESSION = {"CONVEYOR_ISSUE": "3", "CONVEYOR_SESSION_DIR": "/sessions/k"}


def build(
    environ: dict[str, str], backend: str = "claude", **kwargs: tuple[str, ...]
) -> dict[str, str]:
    """The builder with fixed session paths."""
    return build_env(
        environ, backend=backend, home=HOME, git_config=GITCONFIG, conveyor_vars=SESSION, **kwargs
    )


def test_forge_tokens_never_pass_even_when_named_in_passthrough() -> None:
    """GH_TOKEN, GITHUB_TOKEN and the configured token variable stay out."""
    environ = {"GH_TOKEN": "a", "GITHUB_TOKEN": "b", "MY_TOKEN": "c", "PATH": "/bin"}
    env = build(environ, passthrough=("GH_TOKEN", "MY_TOKEN"), token_env=("MY_TOKEN",))
    assert not {"GH_TOKEN", "GITHUB_TOKEN", "MY_TOKEN"} & set(env)
    assert env["PATH"] == "/bin"


def test_the_session_gets_its_own_home_and_a_job_owned_git_config() -> None:
    """HOME is the session's; git reads only the job's config."""
    env = build({"HOME": "/root", "GIT_CONFIG_GLOBAL": "/root/.gitconfig"})
    assert env["HOME"] == str(HOME)
    assert env["GIT_CONFIG_GLOBAL"] == str(GITCONFIG)
    assert env["GIT_CONFIG_NOSYSTEM"] == "1"


def test_inherited_conveyor_variables_are_dropped_and_the_sessions_set() -> None:
    """A stale CONVEYOR_ISSUE from the parent never leaks into a nested session."""
    env = build({"CONVEYOR_ISSUE": "99", "CONVEYOR_TEST_SECRET": "s"})
    assert env["CONVEYOR_ISSUE"] == "3"
    assert "CONVEYOR_TEST_SECRET" not in env


def test_each_backend_gets_only_its_own_provider_variables() -> None:
    """Claude sees ANTHROPIC_*, codex sees OPENAI_*; neither sees the other's."""
    environ = {"ANTHROPIC_API_KEY": "a", "OPENAI_API_KEY": "o", "AWS_SECRET_ACCESS_KEY": "x"}
    claude = build(environ, "claude")
    codex = build(environ, "codex")
    assert "ANTHROPIC_API_KEY" in claude
    assert "OPENAI_API_KEY" not in claude
    assert "OPENAI_API_KEY" in codex
    assert "ANTHROPIC_API_KEY" not in codex
    assert "AWS_SECRET_ACCESS_KEY" not in claude | codex


names = st.from_regex(r"[A-Z_][A-Z0-9_]{0,20}", fullmatch=True)


@given(
    environ=st.dictionaries(names | st.sampled_from(sorted(FORGE_TOKENS)), st.text(max_size=5)),
    passthrough=st.lists(names | st.sampled_from(sorted(FORGE_TOKENS)), max_size=5),
    token_env=st.lists(names, max_size=3),
    backend=st.sampled_from(["claude", "codex", "opencode"]),
)
def test_any_environment_yields_only_allowed_names_and_no_token(
    environ: dict[str, str], passthrough: list[str], token_env: list[str], backend: str
) -> None:
    """Over arbitrary environments: no token name, and every name is on the allowlist."""
    env = build(environ, backend, passthrough=tuple(passthrough), token_env=tuple(token_env))
    assert not (FORGE_TOKENS | set(token_env)) & set(env)
    fixed = {"HOME", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM", "GIT_TERMINAL_PROMPT"}
    for name in env:
        allowed = (
            name in BASE
            or name in passthrough
            or name in fixed
            or name in SESSION
            or name.startswith(
                ("ANTHROPIC_", "CLAUDE_CODE_", "OPENAI_", "OPENROUTER_", "OPENCODE_")
            )
        )
        assert allowed, name
    for name in set(environ) & set(BASE):
        assert env[name] == environ[name]


def test_the_session_home_holds_only_the_clis_own_login_file(tmp_path: Path) -> None:
    """No ssh keys, gh config or git credentials are copied; claude's credentials are."""
    owner = tmp_path / "owner"
    for relative in (
        ".ssh/id_ed25519",
        ".config/gh/hosts.yml",
        ".git-credentials",
        ".claude/.credentials.json",
    ):
        (owner / relative).parent.mkdir(parents=True, exist_ok=True)
        (owner / relative).write_text("secret")
    home = prepare_home({"HOME": str(owner)}, "claude", tmp_path / "session")
    copied = sorted(str(p.relative_to(home)) for p in home.rglob("*") if p.is_file())
    assert copied == [".claude/.credentials.json"]
    assert (home / ".claude/.credentials.json").stat().st_mode & 0o077 == 0


def test_codex_gets_its_auth_file_in_its_own_codex_home(tmp_path: Path) -> None:
    """codex's auth.json goes to the session's CODEX_HOME, nothing into HOME."""
    owner = tmp_path / "owner"
    (owner / ".codex").mkdir(parents=True)
    (owner / ".codex" / "auth.json").write_text("{}")
    (owner / ".codex" / "config.toml").write_text("model = 'x'")
    home = prepare_home({"HOME": str(owner)}, "codex", tmp_path)
    codex_home = tmp_path / "codex-home"
    assert [p.name for p in codex_home.iterdir()] == ["auth.json"]
    assert list(home.iterdir()) == []
