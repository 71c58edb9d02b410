"""Redaction of secrets and their base64 forms from posted text."""

from __future__ import annotations

import base64

from hypothesis import given
from hypothesis import strategies as st

from conveyor.core.redact import MASK, redact

TOKEN = "ghs_Q2hlY2tUaGlzT3V0MTIzNDU2Nzg5"


def test_a_token_in_a_log_line_is_masked() -> None:
    """The plain secret is replaced wherever it appears."""
    text = f"fatal: could not push with {TOKEN}\nagain: {TOKEN}"
    assert redact(text, [TOKEN]) == f"fatal: could not push with {MASK}\nagain: {MASK}"


def test_the_base64_of_the_token_is_masked() -> None:
    """A base64-encoded token (standard or URL-safe) does not survive either."""
    encoded = base64.b64encode(TOKEN.encode()).decode()
    urlsafe = base64.urlsafe_b64encode(TOKEN.encode()).decode()
    out = redact(f"a {encoded} b {urlsafe}", [TOKEN])
    assert encoded not in out
    assert urlsafe not in out
    assert MASK in out


def test_a_basic_auth_header_holding_the_token_is_masked() -> None:
    """`x-access-token:TOKEN` in base64 (git's extra header) loses the token's part."""
    header = base64.b64encode(f"x-access-token:{TOKEN}".encode()).decode()
    out = redact(f"Authorization: basic {header}", [TOKEN])
    assert MASK in out
    assert header not in out


def test_empty_secrets_change_nothing() -> None:
    """An unset secret (empty or blank) does not blank out the text."""
    assert redact("nothing secret here", ["", "  "]) == "nothing secret here"


def test_text_without_the_secret_is_unchanged() -> None:
    """Redaction only touches the secret."""
    assert redact("all tests passed", [TOKEN]) == "all tests passed"


SECRETS = st.text(st.characters(min_codepoint=33, max_codepoint=126), min_size=12, max_size=40)
FILLER = st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=20)


@given(SECRETS, FILLER, FILLER)
def test_no_secret_survives_redaction(secret: str, before: str, after: str) -> None:
    """Whatever surrounds it, the secret is gone from the result."""
    assert secret not in redact(before + secret + after, [secret])


@given(SECRETS, FILLER, FILLER)
def test_no_base64_wrapped_secret_survives_redaction(secret: str, before: str, after: str) -> None:
    """Base64 of any text holding the secret no longer decodes to the secret."""
    encoded = base64.b64encode((before + secret + after).encode()).decode()
    out = redact(encoded, [secret])
    assert encoded not in out
    assert MASK in out
