"""Forge clients share one TLS context per process (building one loads the whole CA bundle)."""

from __future__ import annotations

import ssl

import httpx
import pytest

from conveyor.forge.github.client import tls_context, token_forge


def test_many_clients_build_the_verifying_tls_context_at_most_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    built: list[ssl.SSLContext] = []
    real = httpx.create_ssl_context

    def counting() -> ssl.SSLContext:
        built.append(real())
        return built[-1]

    tls_context.cache_clear()
    monkeypatch.setattr(httpx, "create_ssl_context", counting)
    try:
        forges = [token_forge("acme/widgets", f"token-{n}") for n in range(5)]
        for forge in forges:
            forge.close()
    finally:
        tls_context.cache_clear()
    assert len(built) == 1
    assert built[0].verify_mode is ssl.CERT_REQUIRED
    assert built[0].check_hostname
