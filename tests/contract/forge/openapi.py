"""GitHub's OpenAPI description (our subset): match a request to its operation, get validators."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import githubkit_schemas.latest.models as kit_models
from openapi_schema_validator import OAS30Validator, oas30_format_checker
from pydantic import TypeAdapter
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT4

DATA = Path(__file__).parents[2] / "data"
# `github-openapi-subset.json` and the pieces cut beside it (`scripts/cut-github-description`).
SPEC_GLOB = "github-openapi-*.json"
SPEC_URI = "urn:conveyor:github-openapi-subset"
METHODS = ("get", "post", "put", "patch", "delete")
# Parameters whose values may hold slashes (`heads/feature/x`, `feature/x`).
GREEDY = {"ref", "branch"}


def _pointer(*parts: str) -> str:
    return "/" + "/".join(p.replace("~", "~0").replace("/", "~1") for p in parts)


def _pascal(name: str) -> str:
    return "".join(p[:1].upper() + p[1:] for p in re.split(r"[^A-Za-z0-9]+", name) if p)


@dataclass(frozen=True)
class Operation:
    """One method on one path template of the description."""

    method: str
    template: str
    operation_id: str
    pattern: re.Pattern[str]
    spec: dict[str, Any]

    def parameters(self, location: str) -> dict[str, dict[str, Any]]:
        """The operation's parameters `in` `location` (path, query), by name."""
        found: dict[str, dict[str, Any]] = {}
        for raw in self.spec.get("parameters", []):
            param = description().resolve(raw)
            if param["in"] == location:
                found[param["name"]] = param
        return found

    def body_pointer(self) -> str | None:
        """JSON pointer of the request body's JSON schema, if the operation takes one."""
        body = self.spec.get("requestBody")
        if body is None or "application/json" not in body.get("content", {}):
            return None
        return (
            _pointer(
                "paths",
                self.template,
                self.method,
                "requestBody",
                "content",
                "application/json",
            )
            + "/schema"
        )

    def response_pointer(self, status: int) -> str | bool | None:
        """Pointer of the JSON schema answering `status`; None: no JSON body; False: undescribed."""
        responses = self.spec.get("responses", {})
        key = str(status) if str(status) in responses else "default"
        if key not in responses:
            return False
        answer = description().resolve(responses[key])
        if "application/json" not in answer.get("content", {}):
            return None
        if "$ref" in responses[key]:
            name = responses[key]["$ref"].rsplit("/", 1)[-1]
            media = _pointer("components", "responses", name, "content", "application/json")
        else:
            media = _pointer(
                "paths", self.template, self.method, "responses", key, "content", "application/json"
            )
        return media + "/schema"

    def kit_model(self, status: int) -> Any | None:
        """githubkit's model for a success answer, named as githubkit's generator names it."""
        pointer = self.response_pointer(status)
        if not isinstance(pointer, str):
            return None
        schema = description().at(pointer)
        if "$ref" in schema:
            return getattr(kit_models, _pascal(schema["$ref"].rsplit("/", 1)[-1]), None)
        items = schema.get("items", {})
        if schema.get("type") == "array" and "$ref" in items:
            model = getattr(kit_models, _pascal(items["$ref"].rsplit("/", 1)[-1]), None)
            return list[model] if model is not None else None  # type: ignore[valid-type]
        choices = schema.get("oneOf") or schema.get("anyOf")
        if choices:
            models = [getattr(kit_models, _pascal(c["$ref"].rsplit("/", 1)[-1])) for c in choices]
            union: Any = models[0]
            for model in models[1:]:
                union = union | model
            return union
        name = f"{_pascal(self.template)}{_pascal(self.method)}Response{status}"
        return getattr(kit_models, name, None)


class Description:
    """The loaded description: operations by path pattern, and schema validators."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.document = document
        resource = Resource.from_contents(document, default_specification=DRAFT4)
        self.registry: Registry[Any] = Registry().with_resource(SPEC_URI, resource)
        operations: list[Operation] = []
        for template, item in document["paths"].items():
            regex = re.sub(
                r"\{(\w+)\}",
                lambda m: f"(?P<{m[1]}>.+)" if m[1] in GREEDY else f"(?P<{m[1]}>[^/]+)",
                template,
            )
            for method in METHODS:
                if method in item:
                    spec = item[method]
                    operations.append(
                        Operation(
                            method, template, spec["operationId"], re.compile(f"^{regex}$"), spec
                        )
                    )
        # The most literal template wins (`/branches/{b}/protection` before `/branches/{b}`).
        operations.sort(key=lambda op: -len(re.sub(r"\{\w+\}", "", op.template)))
        self.operations = operations

    def match(self, method: str, path: str) -> tuple[Operation, dict[str, str]] | None:
        """The operation serving `method path`, with the path's parameter values."""
        for operation in self.operations:
            if operation.method != method.lower():
                continue
            found = operation.pattern.match(path)
            if found:
                return operation, found.groupdict()
        return None

    def resolve(self, node: dict[str, Any]) -> dict[str, Any]:
        """Follow a local `$ref` (parameters, responses) to its target."""
        while "$ref" in node:
            node = self.at(node["$ref"].removeprefix("#"))
        return node

    def at(self, pointer: str) -> dict[str, Any]:
        """The node at a JSON pointer of the document."""
        node: Any = self.document
        for raw in pointer.lstrip("/").split("/"):
            node = node[raw.replace("~1", "/").replace("~0", "~")]
        result: dict[str, Any] = node
        return result

    def validator(self, pointer: str) -> Any:
        """An OAS 3.0 validator for the schema at `pointer`, with `$ref`s resolved."""
        return _validator(self, pointer)


@cache
def _validator(spec: Description, pointer: str) -> Any:
    return OAS30Validator(
        {"$ref": f"{SPEC_URI}#{pointer}"},
        registry=spec.registry,
        format_checker=oas30_format_checker,
    )


def merged_document() -> dict[str, Any]:
    """Every piece of the description in `tests/data`, merged: paths and components."""
    merged: dict[str, Any] = {}
    for path in sorted(DATA.glob(SPEC_GLOB)):
        piece = json.loads(path.read_text(encoding="utf-8"))
        if not merged:
            merged = piece
            continue
        merged["paths"] = {**merged["paths"], **piece["paths"]}
        for kind, found in piece["components"].items():
            merged["components"][kind] = {**merged["components"].get(kind, {}), **found}
    return merged


@cache
def description() -> Description:
    """The description in `tests/data`, loaded once."""
    return Description(merged_document())


@cache
def adapter(model: Any) -> TypeAdapter[Any]:
    """A pydantic adapter for a githubkit model (or a list or union of them)."""
    return TypeAdapter(model)
