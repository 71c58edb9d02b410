"""A small strict check of the emulator's answers against GitHub's OpenAPI description."""

from __future__ import annotations

import re
from functools import cache
from typing import Any

import httpx
from openapi_schema_validator import OAS30Validator

from tests.contract.forge.openapi import merged_document


def _allow_null_enums(node: Any) -> Any:
    """Add null to `nullable` enums: GitHub sends `"state_reason": null`, which OAS 3.0.3 reads
    as outside `enum` unless the enum lists null itself."""
    if isinstance(node, dict):
        fixed = {key: _allow_null_enums(value) for key, value in node.items()}
        if fixed.get("nullable") and "enum" in fixed and None not in fixed["enum"]:
            fixed["enum"] = [*fixed["enum"], None]
        return fixed
    if isinstance(node, list):
        return [_allow_null_enums(item) for item in node]
    return node


SPEC: dict[str, Any] = _allow_null_enums(merged_document())


@cache
def _templates() -> list[tuple[re.Pattern[str], str]]:
    """Each documented path as a regex, most literal segments first."""
    found = []
    for template in SPEC["paths"]:
        pattern = re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(template))
        found.append((re.compile(f"^{pattern}$"), template))
    return sorted(found, key=lambda item: item[1].count("{"))


@cache
def _validator(template: str, method: str, status: str) -> OAS30Validator | None:
    """The validator of one documented answer, or None when it has no JSON body."""
    operation = SPEC["paths"][template][method]
    answer = operation["responses"].get(status)
    assert answer is not None, f"{method.upper()} {template} does not document status {status}"
    schema = answer.get("content", {}).get("application/json", {}).get("schema")
    if schema is None:
        return None
    return OAS30Validator(
        {**schema, "components": SPEC["components"]},
        format_checker=OAS30Validator.FORMAT_CHECKER,
    )


def check_response(response: httpx.Response) -> None:
    """Fail unless an answer to a documented path has a documented status and matches its schema."""
    path = response.request.url.path
    method = response.request.method.lower()
    if path.startswith("/_conveyor") or path == "/" or response.status_code == 304:
        return
    template = next((t for pattern, t in _templates() if pattern.match(path)), None)
    if template is None or method not in SPEC["paths"][template]:
        return
    documented = SPEC["paths"][template][method]["responses"]
    if response.status_code >= 400 and str(response.status_code) not in documented:
        return  # e.g. 401 and 403, which GitHub's description leaves out of most operations
    response.read()
    validator = _validator(template, method, str(response.status_code))
    if validator is not None:
        errors = [
            f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(response.json())
        ]
        assert not errors, f"{method.upper()} {path} answer breaks {template}:\n" + "\n".join(
            errors[:10]
        )


def check_error_shape(response: httpx.Response, status: int) -> dict[str, Any]:
    """Assert a GitHub-shaped error body with this status; return it."""
    assert response.status_code == status, (response.status_code, response.text)
    body: dict[str, Any] = response.json()
    assert isinstance(body["message"], str)
    assert isinstance(body["documentation_url"], str)
    return body
