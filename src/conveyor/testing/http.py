"""httpx for tests: every client and transport shares the process's one TLS context.

httpx builds a verifying TLS context for each client or transport it makes, loading the
whole CA bundle: about 30 ms of CPU, even for the plain-http loopback forge and fake model
the tests talk to. The tests make hundreds of clients; these helpers build none.
"""

from __future__ import annotations

from typing import Any

import httpx

from conveyor.forge.github.client import tls_context


def client(**options: Any) -> httpx.Client:
    """`httpx.Client(**options)` on the shared TLS context."""
    return httpx.Client(verify=tls_context(), **options)


def transport(**options: Any) -> httpx.HTTPTransport:
    """`httpx.HTTPTransport(**options)` on the shared TLS context."""
    return httpx.HTTPTransport(verify=tls_context(), **options)


def request(method: str, url: str, **options: Any) -> httpx.Response:
    """One request through a short-lived client, as `httpx.request` sends it."""
    with client() as one:
        return one.request(method, url, **options)


def get(url: str, **options: Any) -> httpx.Response:
    """`httpx.get`, without building a TLS context."""
    return request("GET", url, **options)


def post(url: str, **options: Any) -> httpx.Response:
    """`httpx.post`, without building a TLS context."""
    return request("POST", url, **options)


def put(url: str, **options: Any) -> httpx.Response:
    """`httpx.put`, without building a TLS context."""
    return request("PUT", url, **options)


def delete(url: str, **options: Any) -> httpx.Response:
    """`httpx.delete`, without building a TLS context."""
    return request("DELETE", url, **options)
