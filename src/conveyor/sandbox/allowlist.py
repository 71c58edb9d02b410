"""Which hosts a boxed session or command may reach: per-backend model hosts, loopback ports."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from conveyor.core import backends

WEB_PORTS = frozenset({80, 443})
LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1", "[::1]"})


class AllowlistError(ValueError):
    """An allowlist entry that names no host (`[sandbox].allow_hosts`, a base URL)."""


def model_hosts(backend: str, model: str) -> tuple[str, ...]:
    """The model API hosts of one backend's CLI (its row in `core.backends`; opencode's follow
    its model's provider)."""
    return backends.model_hosts(backend, model)


def _clean(host: str) -> str:
    return host.strip().strip("[]").rstrip(".").lower()


def endpoint_of(url: str) -> tuple[str, int]:
    """The host and port a base URL (`http://127.0.0.1:PORT/...`) connects to."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        msg = f"expected an http(s) URL with a host, got {url!r}"
        raise AllowlistError(msg)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return _clean(parts.hostname), port


def is_loopback(host: str) -> bool:
    """Whether `host` names this machine's loopback."""
    clean = _clean(host)
    return clean in LOOPBACK or clean.startswith("127.")


@dataclass(frozen=True)
class Allowlist:
    """Hosts reachable on the web ports (a `*.` entry takes subdomains), and exact
    `host:port` endpoints (the only way to reach a loopback port)."""

    hosts: frozenset[str] = frozenset()
    endpoints: frozenset[tuple[str, int]] = frozenset()

    @classmethod
    def of(cls, entries: Iterable[str], urls: Iterable[str] = ()) -> Allowlist:
        """From `host`, `*.domain` or `host:port` entries and the base URLs a job names."""
        hosts: set[str] = set()
        endpoints: set[tuple[str, int]] = set()
        for entry in entries:
            name, sep, port = entry.strip().rpartition(":")
            if sep and port.isdigit() and name and not name.endswith(":"):
                endpoints.add((_clean(name), int(port)))
            elif _clean(entry) and ":" not in _clean(entry) and "/" not in entry:
                hosts.add(_clean(entry))
            else:
                msg = f"expected a host name, `*.domain` or `host:port`, got {entry!r}"
                raise AllowlistError(msg)
        endpoints.update(endpoint_of(url) for url in urls)
        return cls(frozenset(hosts), frozenset(endpoints))

    def allows(self, host: str, port: int) -> bool:
        """Whether a connection to `host:port` may go out."""
        clean = _clean(host)
        if (clean, port) in self.endpoints:
            return True
        if port not in WEB_PORTS or is_loopback(clean):
            return False
        if clean in self.hosts:
            return True
        return any(h.startswith("*.") and clean.endswith(h[1:]) for h in self.hosts)

    def loopback_ports(self) -> tuple[int, ...]:
        """The loopback ports a box forwards to the host's loopback (the fake model's)."""
        return tuple(sorted({port for host, port in self.endpoints if is_loopback(host)}))

    def names(self) -> tuple[str, ...]:
        """Every entry, sorted, as `--print-boundary` and the logs name them."""
        pairs = [f"{host}:{port}" for host, port in self.endpoints]
        return tuple(sorted([*self.hosts, *pairs]))
