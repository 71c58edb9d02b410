"""Commands get a persistent cache home and the user's pip configuration (issue 13, point 4)."""

from __future__ import annotations

from pathlib import Path

from conveyor.core.config import AccountConfig, Commands, Config
from conveyor.job.boundary import command_env


def _config(shared_cache: bool = True) -> Config:
    return Config(
        repo="acme/calc",
        account=AccountConfig(login="bot", token_env="BOT_TOKEN"),
        allowed_users=("alice",),
        commands=Commands(test="pytest", shared_cache=shared_cache),
    )


def test_commands_keep_pips_cache_under_the_home_and_see_the_users_pip_config(
    tmp_path: Path,
) -> None:
    """PIP_CACHE_DIR and XDG_CACHE_HOME persist across jobs; pip.conf and index settings pass."""
    user = tmp_path / "user"
    (user / ".config" / "pip").mkdir(parents=True)
    (user / ".config" / "pip" / "pip.conf").write_text("[global]\nindex-url = http://x\n")
    environ = {"PATH": "/bin", "HOME": str(user), "BOT_TOKEN": "s", "PIP_INDEX_URL": "http://x"}
    cache = tmp_path / "conveyor-home" / "cache"
    env = command_env(
        _config(), environ, home=tmp_path / "job-home", git_config=tmp_path / "g", cache_dir=cache
    )
    assert env["PIP_CACHE_DIR"] == str(cache / "pip")
    assert env["XDG_CACHE_HOME"] == str(cache)
    assert env["PIP_CONFIG_FILE"] == str(user / ".config" / "pip" / "pip.conf")
    assert env["PIP_INDEX_URL"] == "http://x"
    assert env["HOME"] == str(tmp_path / "job-home")
    assert "BOT_TOKEN" not in env


def test_commands_share_each_ecosystems_download_cache_and_build_in_their_own(
    tmp_path: Path,
) -> None:
    """npm's, yarn's and Go's module caches persist across jobs (issue 47: npm's cache was cold
    in every job's fresh HOME); Go's build cache, which the tests write, is the job's own."""
    cache = tmp_path / "conveyor-home" / "cache"
    home = tmp_path / "job-home"
    environ = {"PATH": "/bin", "HOME": str(tmp_path / "user")}
    env = command_env(_config(), environ, home=home, git_config=tmp_path / "g", cache_dir=cache)
    assert env["npm_config_cache"] == str(cache / "npm")
    assert env["YARN_CACHE_FOLDER"] == str(cache / "yarn")
    assert env["GOMODCACHE"] == str(cache / "go-mod")
    assert env["GOCACHE"].startswith(str(home))


def test_shared_cache_off_gives_commands_only_the_jobs_empty_home(tmp_path: Path) -> None:
    """`commands.shared_cache = false`: no cache variables, no pip configuration."""
    environ = {"PATH": "/bin", "HOME": str(tmp_path), "PIP_INDEX_URL": "http://x"}
    env = command_env(
        _config(shared_cache=False),
        environ,
        home=tmp_path / "job-home",
        git_config=tmp_path / "g",
        cache_dir=tmp_path / "cache",
    )
    assert not {"PIP_CACHE_DIR", "XDG_CACHE_HOME", "PIP_CONFIG_FILE", "PIP_INDEX_URL"} & set(env)
    assert not {"npm_config_cache", "GOMODCACHE", "GOCACHE"} & set(env)
