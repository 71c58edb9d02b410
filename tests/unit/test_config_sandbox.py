"""The `[sandbox]` section: its default, and a clear line naming the key for a bad value."""

from __future__ import annotations

import re

import pytest

from conveyor.cli.config_load import ConfigError, parse_config
from tests.unit.test_config import GOOD


def _errors(text: str) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        parse_config(text, "conf.toml")
    return [re.sub(r"^conf\.toml:\d+:", "conf.toml:", line) for line in caught.value.lines]


def test_the_sandbox_is_auto_by_default() -> None:
    """No `[sandbox]`: a box when one can be built, with no hosts allowed beyond the model's;
    setup's registries not named (the job reads them from the setup's own tools)."""
    sandbox = parse_config(GOOD, "conf.toml").sandbox
    assert (sandbox.mode, sandbox.allow_hosts, sandbox.setup_network) == ("auto", (), None)
    assert (sandbox.readable, sandbox.caches) == ((), ())


def test_a_sandbox_with_hosts_loads() -> None:
    """Hosts, subdomain patterns and ports are accepted."""
    text = (
        GOOD + '\n[sandbox]\nmode = "none"\nallow_hosts = ["api.example.com:8443"]\n'
        'setup_network = ["pypi.org", "*.pythonhosted.org"]\n'
    )
    sandbox = parse_config(text, "conf.toml").sandbox
    assert sandbox.mode == "none"
    assert sandbox.setup_network == ("pypi.org", "*.pythonhosted.org")


def test_an_unknown_mode_names_the_key_and_the_choices() -> None:
    """`mode = "docker"` is refused with the key and the three modes."""
    (line,) = _errors(GOOD + '\n[sandbox]\nmode = "docker"\n')
    assert line.startswith("conf.toml: sandbox.mode: ")
    assert all(mode in line for mode in ("auto", "bwrap", "none"))
    assert "'docker'" in line


@pytest.mark.parametrize("key", ["allow_hosts", "setup_network"])
def test_a_bad_host_names_the_key_and_the_host(key: str) -> None:
    """A URL where a host name belongs is refused, naming the key and the value."""
    (line,) = _errors(GOOD + f'\n[sandbox]\n{key} = ["https://pypi.org/simple"]\n')
    assert line.startswith(f"conf.toml: sandbox.{key}")
    assert "https://pypi.org/simple" in line


def test_an_unknown_sandbox_key_is_named() -> None:
    """A typo under `[sandbox]` is an error."""
    assert _errors(GOOD + "\n[sandbox]\nallowed_hosts = []\n") == [
        "conf.toml: sandbox.allowed_hosts: unknown key; did you mean `allow_hosts`?"
    ]


@pytest.mark.parametrize("key", ["readable", "caches"])
@pytest.mark.parametrize("path", ["tools/bin", "~", "~/", "/", "$HOME/x"])
def test_a_readable_or_cache_path_must_be_absolute_and_not_the_whole_home(
    key: str, path: str
) -> None:
    """A relative path, the home or the root itself is refused, naming the key and value."""
    (line,) = _errors(GOOD + f'\n[sandbox]\n{key} = ["{path}"]\n')
    assert line.startswith(f"conf.toml: sandbox.{key}")
    assert repr(path) in line


def test_readable_and_caches_load() -> None:
    """Absolute paths and paths under `~/` are accepted as written."""
    text = GOOD + '\n[sandbox]\nreadable = ["/srv/jdk", "~/tools"]\ncaches = ["~/.cache/x"]\n'
    sandbox = parse_config(text, "conf.toml").sandbox
    assert sandbox.readable == ("/srv/jdk", "~/tools")
    assert sandbox.caches == ("~/.cache/x",)
