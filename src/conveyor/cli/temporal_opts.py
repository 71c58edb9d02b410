"""The Temporal options `conveyor run --executor temporal` and `conveyor worker` share."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

TemporalOption = Annotated[
    str | None,
    typer.Option("--temporal", envvar="CONVEYOR_TEMPORAL", help="The Temporal service, HOST:PORT."),
]
QueueOption = Annotated[
    str,
    typer.Option("--queue", envvar="CONVEYOR_TEMPORAL_QUEUE", help="The task queue."),
]
NamespaceOption = Annotated[
    str,
    typer.Option("--namespace", envvar="CONVEYOR_TEMPORAL_NAMESPACE", help="The namespace."),
]
TlsOption = Annotated[
    bool, typer.Option("--tls", help="Use TLS (implied by a client certificate or API key).")
]
CertOption = Annotated[
    Path | None, typer.Option("--tls-cert", help="Client certificate for mTLS (Temporal Cloud).")
]
KeyOption = Annotated[
    Path | None, typer.Option("--tls-key", help="Client private key for mTLS (Temporal Cloud).")
]
