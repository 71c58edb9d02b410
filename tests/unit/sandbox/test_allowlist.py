"""The allowlist: web ports of named hosts, exact loopback endpoints, bad entries named."""

from __future__ import annotations

import pytest

from conveyor.sandbox.allowlist import Allowlist, AllowlistError, model_hosts
from conveyor.sandbox.bridge import parse
from conveyor.sandbox.proxy import BadRequest, parse_head


def test_a_named_host_is_reachable_on_the_web_ports_only() -> None:
    """`api.anthropic.com` allows 443 and 80, not another port or another host."""
    allow = Allowlist.of(["api.anthropic.com"])
    assert allow.allows("api.anthropic.com", 443)
    assert allow.allows("API.Anthropic.com.", 80)
    assert not allow.allows("api.anthropic.com", 22)
    assert not allow.allows("evil.anthropic.com", 443)
    assert not allow.allows("api.openai.com", 443)


def test_a_wildcard_takes_subdomains_but_not_lookalikes() -> None:
    """`*.npmjs.org` allows registry.npmjs.org, not `evilnpmjs.org`."""
    allow = Allowlist.of(["*.npmjs.org"])
    assert allow.allows("registry.npmjs.org", 443)
    assert not allow.allows("evilnpmjs.org", 443)


def test_loopback_is_reachable_only_at_the_endpoints_the_job_names() -> None:
    """The fake model's port is allowed; the forge's port beside it and bare names are not."""
    allow = Allowlist.of(["localhost", "127.0.0.1"], ["http://127.0.0.1:4100/v1"])
    assert allow.allows("127.0.0.1", 4100)
    assert not allow.allows("127.0.0.1", 4101)
    assert not allow.allows("localhost", 80)
    assert not allow.allows("127.0.0.2", 443)
    assert allow.loopback_ports() == (4100,)
    assert allow.names() == ("127.0.0.1", "127.0.0.1:4100", "localhost")


def test_an_entry_that_names_no_host_is_an_error_naming_it() -> None:
    """A URL or a path in `allow_hosts` is refused with the entry in the message."""
    for entry in ("https://pypi.org/simple", "pypi.org/simple", ""):
        with pytest.raises(AllowlistError, match="host"):
            Allowlist.of([entry])


def test_each_backend_has_its_model_hosts() -> None:
    """claude: Anthropic; codex: OpenAI and ChatGPT; opencode: its model's provider."""
    assert model_hosts("claude", "sonnet") == ("api.anthropic.com",)
    assert "chatgpt.com" in model_hosts("codex", "gpt-5")
    assert model_hosts("opencode", "openai/gpt-5") == ("api.openai.com",)
    assert model_hosts("opencode", "openrouter/x") == ("openrouter.ai",)


def test_a_request_head_names_its_target() -> None:
    """CONNECT is a tunnel; an absolute-form GET is sent on in origin form."""
    tunnel = parse_head(b"CONNECT api.openai.com:443 HTTP/1.1\r\nHost: x\r\n\r\n")
    assert (tunnel.host, tunnel.port, tunnel.head) == ("api.openai.com", 443, None)
    plain = parse_head(b"GET http://pypi.org/simple/?q=1 HTTP/1.1\r\nHost: pypi.org\r\n\r\n")
    assert (plain.host, plain.port) == ("pypi.org", 80)
    assert plain.head is not None
    assert plain.head.startswith(b"GET /simple/?q=1 HTTP/1.1\r\nHost: pypi.org")
    for bad in (b"GET /relative HTTP/1.1\r\n\r\n", b"CONNECT nohost HTTP/1.1\r\n\r\n", b"x\r\n"):
        with pytest.raises(BadRequest):
            parse_head(bad)


def test_the_bridge_names_a_bad_argument() -> None:
    """No command, no socket, a forward without a port: each is a ValueError naming it."""
    assert parse(["--socket", "/s", "--forward", "127.0.0.1:80", "--", "true"]) == (
        "/s",
        [("127.0.0.1", 80)],
        ["true"],
    )
    for argv, named in (
        (["--socket", "/s"], "command"),
        (["--", "true"], "--socket"),
        (["--socket", "/s", "--forward", "host", "--", "true"], "--forward"),
        (["--socket", "/s", "--bogus", "x", "--", "true"], "--bogus"),
    ):
        with pytest.raises(ValueError, match=named):
            parse(argv)
