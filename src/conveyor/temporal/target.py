"""Where the Temporal service is and how to reach it: address, namespace, queue, TLS, API key.

A dev server or a self-hosted cluster is `HOST:PORT` in plain gRPC; Temporal Cloud is
`NAMESPACE.ACCOUNT.tmprl.cloud:7233` with mTLS (`--tls-cert`, `--tls-key`) or an API
key read from the environment variable `CONVEYOR_TEMPORAL_API_KEY` (never a flag, so it
stays out of process listings). The key is removed from every job's environment.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from temporalio.client import Client
from temporalio.service import TLSConfig

API_KEY_ENV = "CONVEYOR_TEMPORAL_API_KEY"
DEFAULT_QUEUE = "conveyor"


class TargetError(ValueError):
    """A Temporal setting that cannot work, named with what was wrong."""


@dataclass(frozen=True)
class TemporalTarget:
    """The service and task queue one orchestrator or worker talks to."""

    address: str
    queue: str = DEFAULT_QUEUE
    namespace: str = "default"
    tls: bool = False
    tls_cert: Path | None = None
    tls_key: Path | None = None

    def __post_init__(self) -> None:
        host, _, port = self.address.rpartition(":")
        if not host or not port.isdigit():
            msg = f"--temporal: expected HOST:PORT, got {self.address!r}"
            raise TargetError(msg)
        if not self.queue.strip():
            msg = "--queue: the task queue name is empty"
            raise TargetError(msg)
        if (self.tls_cert is None) != (self.tls_key is None):
            msg = "--tls-cert and --tls-key: give both or neither"
            raise TargetError(msg)


def _tls(target: TemporalTarget, api_key: str | None) -> bool | TLSConfig | None:
    if target.tls_cert is not None and target.tls_key is not None:
        try:
            cert, key = target.tls_cert.read_bytes(), target.tls_key.read_bytes()
        except OSError as exc:
            msg = f"--tls-cert/--tls-key: cannot read {exc.filename}: {exc.strerror}"
            raise TargetError(msg) from exc
        return TLSConfig(client_cert=cert, client_private_key=key)
    return bool(target.tls or api_key)


async def connect(
    target: TemporalTarget, environ: Mapping[str, str], identity: str | None = None
) -> Client:
    """A client of the target's namespace (TLS with a client certificate or an API key)."""
    api_key = environ.get(API_KEY_ENV) or None
    return await Client.connect(
        target.address,
        namespace=target.namespace,
        api_key=api_key,
        tls=_tls(target, api_key),
        identity=identity,
    )


def job_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """The environment a worker's jobs run with: its own, less the Temporal API key."""
    return {k: v for k, v in environ.items() if k != API_KEY_ENV}
