"""Redaction of secrets (and their base64 forms) from text the pipeline posts."""

from __future__ import annotations

import base64
from collections.abc import Iterable

MASK = "***"
# Base64 fragments shorter than this could match ordinary text by chance.
_MIN_FRAGMENT = 8
_URLSAFE = str.maketrans("+/", "-_")


def _base64_fragments(secret: bytes) -> set[str]:
    """Base64 text that any encoding containing `secret` must contain, at each alignment.

    Base64 works on 3-byte groups, so a secret preceded by 0, 1 or 2 other bytes
    (as in `user:TOKEN` for HTTP basic auth) encodes differently; the characters
    fully determined by the secret's own bits are the same for every prefix of a
    given length modulo 3.
    """
    fragments: set[str] = set()
    for offset, dropped in ((0, 0), (1, 2), (2, 3)):
        encoded = base64.b64encode(b"\0" * offset + secret).decode("ascii")
        exact_chars = ((offset + len(secret)) * 8) // 6
        core = encoded[dropped:exact_chars]
        if len(core) >= _MIN_FRAGMENT:
            fragments.add(core)
            fragments.add(core.translate(_URLSAFE))
    whole = base64.b64encode(secret).decode("ascii")
    if len(whole) >= _MIN_FRAGMENT:
        fragments.update({whole, whole.translate(_URLSAFE)})
    return fragments


def redact(text: str, secrets: Iterable[str]) -> str:
    """`text` with every secret, and every base64 encoding of it, replaced by `***`.

    Empty and whitespace-only secrets are ignored.
    """
    patterns: set[str] = set()
    for secret in secrets:
        if not secret.strip():
            continue
        patterns.add(secret)
        patterns.update(_base64_fragments(secret.encode("utf-8")))
    for pattern in sorted(patterns, key=len, reverse=True):
        text = MASK.join(text.split(pattern))
    return text
