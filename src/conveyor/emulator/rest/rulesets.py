"""Repository rulesets: list, create, read, replace and delete them; the rules on a branch.

Only branch rulesets at repository level, which is what a repository's own
settings make. Admins write them; anyone who can read the repository reads them
and the rules that apply to a branch (`GET .../rules/branches/{branch}`), which
lists the active rulesets' rules only, as GitHub does. `required.required_for`
enforces their required status checks on merges.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from conveyor.emulator.model.http import (
    ApiError,
    base_url,
    emulator,
    json_response,
    no_content,
    page_params,
    paged_response,
    read_object,
    require_user,
    validation_failed,
)
from conveyor.emulator.model.records import permission_of, require_owned, require_repo
from conveyor.emulator.model.shapes import now_iso, repo_api_url, repo_html_url
from conveyor.emulator.repos.required import active_rules

RESOURCE = "Ruleset"
ENFORCEMENTS = ("disabled", "active", "evaluate")
TARGETS = ("branch", "tag", "push")
# Rule types the embedded forge stores; only required_status_checks is enforced.
RULE_TYPES = (
    "creation", "update", "deletion", "required_linear_history", "required_signatures",
    "non_fast_forward", "pull_request", "required_status_checks",
)  # fmt: skip


def _slug(repo: sqlite3.Row) -> str:
    return f"{repo['owner_login']}/{repo['name']}"


def ruleset_json(base: str, repo: sqlite3.Row, row: sqlite3.Row) -> dict[str, Any]:
    """GitHub's repository-ruleset."""
    api = repo_api_url(base, repo["owner_login"], repo["name"])
    html = repo_html_url(base, repo["owner_login"], repo["name"])
    return {
        "id": row["id"],
        "name": row["name"],
        "target": row["target"],
        "source_type": "Repository",
        "source": _slug(repo),
        "enforcement": row["enforcement"],
        "bypass_actors": [],
        "current_user_can_bypass": "never",
        "node_id": f"RRS_{row['id']:08d}",
        "_links": {
            "self": {"href": f"{api}/rulesets/{row['id']}"},
            "html": {"href": f"{html}/rules/{row['id']}"},
        },
        "conditions": json.loads(row["conditions"]),
        "rules": json.loads(row["rules"]),
        "created_at": row["created_at"],
        "updated_at": row["updated_at"],
    }


def _patterns(value: Any, field: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(p, str) for p in value):
        raise validation_failed(RESOURCE, field, "invalid", f"{field} must be a list of strings")
    return list(value)


def _conditions(value: Any) -> dict[str, Any]:
    if value is None:
        return {"ref_name": {"include": [], "exclude": []}}
    ref_name = value.get("ref_name") if isinstance(value, dict) else None
    if not isinstance(ref_name, dict):
        raise validation_failed(RESOURCE, "conditions", "invalid", "conditions.ref_name is needed")
    include = _patterns(ref_name.get("include"), "conditions.ref_name.include")
    exclude = _patterns(ref_name.get("exclude"), "conditions.ref_name.exclude")
    return {"ref_name": {"include": include, "exclude": exclude}}


def _status_checks(params: Any) -> dict[str, Any]:
    field = "rules.parameters"
    if not isinstance(params, dict):
        raise validation_failed(RESOURCE, field, "missing_field")
    checks = params.get("required_status_checks")
    strict = params.get("strict_required_status_checks_policy")
    if not isinstance(checks, list) or not isinstance(strict, bool):
        message = "required_status_checks (a list) and strict_required_status_checks_policy"
        raise validation_failed(RESOURCE, field, "missing_field", message)
    kept: list[dict[str, Any]] = []
    for check in checks:
        context = check.get("context") if isinstance(check, dict) else None
        if not isinstance(context, str) or not context:
            raise validation_failed(RESOURCE, field, "invalid", "each check needs a context")
        entry: dict[str, Any] = {"context": context}
        if isinstance(check.get("integration_id"), int):
            entry["integration_id"] = check["integration_id"]
        kept.append(entry)
    return {"required_status_checks": kept, "strict_required_status_checks_policy": strict}


def _rules(value: Any) -> list[dict[str, Any]]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise validation_failed(RESOURCE, "rules", "invalid", "rules must be a list")
    rules: list[dict[str, Any]] = []
    for rule in value:
        kind = rule.get("type") if isinstance(rule, dict) else None
        if kind not in RULE_TYPES:
            raise validation_failed(RESOURCE, "rules", "invalid", f"unknown rule type {kind!r}")
        assert isinstance(rule, dict)
        if kind == "required_status_checks":
            rules.append({"type": kind, "parameters": _status_checks(rule.get("parameters"))})
        elif "parameters" in rule:
            rules.append({"type": kind, "parameters": rule["parameters"]})
        else:
            rules.append({"type": kind})
    return rules


def _fields(body: dict[str, Any], before: sqlite3.Row | None) -> dict[str, Any]:
    """The stored columns from a create (no `before`) or a replace body."""
    name = body.get("name", None if before is None else before["name"])
    enforcement = body.get("enforcement", None if before is None else before["enforcement"])
    target = body.get("target", "branch" if before is None else before["target"])
    if not isinstance(name, str) or not name.strip():
        raise validation_failed(RESOURCE, "name", "missing_field")
    if enforcement not in ENFORCEMENTS:
        raise validation_failed(RESOURCE, "enforcement", "invalid", "disabled, active or evaluate")
    if target not in TARGETS:
        raise validation_failed(RESOURCE, "target", "invalid", "branch, tag or push")
    if before is not None and "conditions" not in body:
        conditions = json.loads(before["conditions"])
    else:
        conditions = _conditions(body.get("conditions"))
    if before is not None and "rules" not in body:
        rules = json.loads(before["rules"])
    else:
        rules = _rules(body.get("rules"))
    return {
        "name": name,
        "enforcement": enforcement,
        "target": target,
        "conditions": json.dumps(conditions),
        "rules": json.dumps(rules),
    }


def _context(request: Request, *, admin: bool) -> sqlite3.Row:
    state = emulator(request)
    repo = require_repo(state.store, request.path_params["owner"], request.path_params["repo"])
    if admin:
        user = require_user(request)
        if permission_of(state.store, repo, int(user["id"])) != "admin":
            raise ApiError(403, "Resource not accessible by integration")
    return repo


def _row(request: Request, repo: sqlite3.Row) -> sqlite3.Row:
    store = emulator(request).store
    return require_owned(store, "rulesets", request.path_params["ruleset_id"], repo)


async def list_rulesets(request: Request) -> Response:
    """`GET /repos/{owner}/{repo}/rulesets`."""
    repo = _context(request, admin=False)
    page = page_params(request)
    rows = emulator(request).store.all(
        "SELECT * FROM rulesets WHERE repo_id = ? ORDER BY id", (repo["id"],)
    )
    base = base_url(request)
    items = [ruleset_json(base, repo, row) for row in rows]
    return paged_response(
        request, items[page.offset : page.offset + page.per_page], page, len(items)
    )


async def create_ruleset(request: Request) -> Response:
    """`POST /repos/{owner}/{repo}/rulesets` (admins)."""
    repo = _context(request, admin=True)
    fields = _fields(await read_object(request), None)
    store = emulator(request).store
    now = now_iso()
    with store.tx() as conn:
        ident = store.next_id(conn)
        conn.execute(
            "INSERT INTO rulesets (id, repo_id, name, target, enforcement, conditions, rules, "
            "created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (ident, repo["id"], fields["name"], fields["target"], fields["enforcement"],
             fields["conditions"], fields["rules"], now, now),
        )  # fmt: skip
    row = store.one("SELECT * FROM rulesets WHERE id = ?", (ident,))
    assert row is not None
    return json_response(ruleset_json(base_url(request), repo, row), 201)


async def one_ruleset(request: Request) -> Response:
    """`GET/PUT/DELETE /repos/{owner}/{repo}/rulesets/{ruleset_id}`."""
    repo = _context(request, admin=request.method != "GET")
    row = _row(request, repo)
    store = emulator(request).store
    if request.method == "DELETE":
        with store.tx() as conn:
            conn.execute("DELETE FROM rulesets WHERE id = ?", (row["id"],))
        return no_content()
    if request.method == "PUT":
        fields = _fields(await read_object(request), row)
        with store.tx() as conn:
            conn.execute(
                "UPDATE rulesets SET name = ?, target = ?, enforcement = ?, conditions = ?, "
                "rules = ?, updated_at = ? WHERE id = ?",
                (fields["name"], fields["target"], fields["enforcement"], fields["conditions"],
                 fields["rules"], now_iso(), row["id"]),
            )  # fmt: skip
        row = _row(request, repo)
    return json_response(ruleset_json(base_url(request), repo, row))


async def branch_rules(request: Request) -> Response:
    """`GET /repos/{owner}/{repo}/rules/branches/{branch}`: the active rules that apply."""
    repo = _context(request, admin=False)
    found = active_rules(emulator(request).store, int(repo["id"]), request.path_params["branch"])
    items = [
        {**rule, "ruleset_source_type": "Repository", "ruleset_source": _slug(repo),
         "ruleset_id": ident}
        for ident, rule in found
    ]  # fmt: skip
    page = page_params(request)
    return paged_response(
        request, items[page.offset : page.offset + page.per_page], page, len(items)
    )


_REPO = "/repos/{owner}/{repo}"
ROUTES = [
    Route(f"{_REPO}/rules/branches/{{branch:path}}", branch_rules, methods=["GET"]),
    Route(f"{_REPO}/rulesets", list_rulesets, methods=["GET"]),
    Route(f"{_REPO}/rulesets", create_ruleset, methods=["POST"]),
    Route(f"{_REPO}/rulesets/{{ruleset_id}}", one_ruleset, methods=["GET", "PUT", "DELETE"]),
]
