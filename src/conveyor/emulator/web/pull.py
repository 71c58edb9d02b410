"""A pull request's own page: state (merged shown as merged), branches, whose review is
requested, conversation, its
reviews with their inline comments, the agent sessions of a review of it (a person's PR),
the head's check runs and commit statuses, its commits and its diff."""

from __future__ import annotations

from html import escape

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from conveyor.emulator.hooks.push import sync_pushes
from conveyor.emulator.model.assign_rows import people_of
from conveyor.emulator.model.check_rows import check_runs_for, latest_by_name, statuses_for
from conveyor.emulator.model.http import emulator
from conveyor.emulator.model.pull_rows import Pull, get_pull
from conveyor.emulator.model.state import EmulatorState
from conveyor.emulator.repos.pushes import repo_git
from conveyor.emulator.web.issue import conversation_html, find_item, heading
from conveyor.emulator.web.layout import chips, item_href, labels_of, not_found, page, when
from conveyor.emulator.web.pull_table import pull_state
from conveyor.emulator.web.reviews import reviews_html
from conveyor.emulator.web.timeline import issue_timeline
from conveyor.emulator.web.transcript import sessions_html
from conveyor.git import GitError, Repo, log_commits, try_rev_parse
from conveyor.git.objects import patch_between


def _checks(state: EmulatorState, pull: Pull) -> str:
    """The head's newest check run per name and status per context, with their results."""
    store = state.store
    runs = latest_by_name(check_runs_for(store, pull.repo_id, pull.head_sha), "name")
    statuses = latest_by_name(statuses_for(store, pull.repo_id, pull.head_sha), "context")
    rows = []
    for name, run in sorted(runs.items()):
        result = run["conclusion"] or run["status"]
        note = run["title"] or run["summary"] or ""
        rows.append((name, result, note, run["completed_at"] or run["started_at"]))
    for name, row in sorted(statuses.items()):
        rows.append((name, row["state"], row["description"] or "", row["updated_at"]))
    if not rows:
        return "<h2>Checks</h2><p class='meta'>No checks on this head.</p>"
    lines = "".join(
        f'<tr><td>{escape(name)}</td><td class="check-{escape(result)}">{escape(result)}</td>'
        f"<td>{escape(note)}</td><td class='meta'>{when(at)}</td></tr>"
        for name, result, note, at in rows
    )
    head = "<tr><th>Check</th><th>Result</th><th>Summary</th><th>At</th></tr>"
    title = f"<h2>Checks <span class='meta'>on {pull.head_sha[:7]}</span></h2>"
    return f"{title}<table>{head}{lines}</table>"


def _diff_line(line: str) -> str:
    kind = ""
    if line.startswith(("+++", "---", "diff --git")):
        kind = "file"
    elif line.startswith("+"):
        kind = "add"
    elif line.startswith("-"):
        kind = "del"
    elif line.startswith("@@"):
        kind = "hunk"
    return f'<span class="{kind}">{escape(line)}</span>' if kind else escape(line)


def _base_of(git: Repo, pull: Pull) -> str | None:
    """The base the diff starts from: the recorded base once closed, else the branch's tip."""
    if pull.state == "closed" and pull.base_sha:
        return pull.base_sha
    return try_rev_parse(git, f"refs/heads/{pull.base_ref}") or pull.base_sha or None


def _changes(state: EmulatorState, pull: Pull) -> str:
    """The PR's commits and its unified diff (three dots: since the head left the base)."""
    git = repo_git(state.store, state.data_dir, pull.repo_id)
    base = _base_of(git, pull)
    if base is None:
        return "<h2>Changes</h2><p class='meta'>The base branch is gone.</p>"
    try:
        commits = log_commits(git, base, pull.head_sha)
        patch = patch_between(git, base, pull.head_sha)
    except GitError as error:
        return f"<h2>Changes</h2><p class='meta'>git could not diff: {escape(str(error))}</p>"
    listed = (
        "".join(f"<li><code>{c.sha[:7]}</code> {escape(c.subject)}</li>" for c in commits)
        or "<li class='meta'>none (the head is in the base)</li>"
    )
    body = "\n".join(_diff_line(line) for line in patch.text.splitlines())
    cut = "<p class='meta'>The diff is cut here: it is too large to show.</p>" if patch.cut else ""
    return (
        f"<h2>Commits</h2><ul>{listed}</ul>"
        f"<h2>Changes</h2><div class='box'><pre class='diff'>{body or 'No changes.'}</pre></div>"
        f"{cut}"
    )


def _merged_line(state: EmulatorState, pull: Pull) -> str:
    if not pull.merged:
        return ""
    user = state.store.one("SELECT login FROM users WHERE id = ?", (pull.merged_by_id,))
    who = f" by {escape(user['login'])}" if user is not None else ""
    sha = f" as <code>{escape((pull.merge_commit_sha or '')[:7])}</code>"
    return f"<p>Merged{who} {when(pull.merged_at)}{sha}.</p>"


def _requested(state: EmulatorState, pull: Pull) -> str:
    """Whose review is requested and not given yet (nothing when nobody's)."""
    asked = people_of(state.store, "review_requests", [pull.issue_id]).get(pull.issue_id, [])
    if not asked:
        return ""
    names = ", ".join(escape(str(user["login"])) for user in asked)
    return f"<p class='meta'>Review requested from {names}</p>"


async def pull_page(request: Request) -> Response:
    """`/{owner}/{repo}/pull/{number}`."""
    owner, name = request.path_params["owner"], request.path_params["repo"]
    number = int(request.path_params["number"])
    state = emulator(request)
    sync_pushes(state)
    slug = f"{owner}/{name}"
    item = find_item(state.store, owner, name, number)
    if item is None:
        return not_found(f"{slug} has no pull request #{number}.")
    pull = get_pull(state.store, int(item["repo_id"]), number)
    if pull is None:
        return RedirectResponse(item_href(slug, number, pull=False), status_code=302)
    labels = chips(labels_of(state.store, [item["id"]])[item["id"]])
    branches = (
        f"<p class='meta'>wants to merge <code>{escape(pull.head_ref)}</code> into "
        f"<code>{escape(pull.base_ref)}</code> · head <code>{pull.head_sha[:7]}</code></p>"
    )
    body = (
        heading(item, pull_state(pull), labels, slug)
        + branches
        + _requested(state, pull)
        + _merged_line(state, pull)
        + conversation_html(state.store, item)
        + reviews_html(state.store, pull.issue_id)
        + issue_timeline(state.pipeline, slug, number)
        + sessions_html(state, slug, number)
        + _checks(state, pull)
        + _changes(state, pull)
    )
    return page(f"#{number} {pull.title}", body, crumbs=[(f"/#{slug}", slug)])


ROUTES = [Route("/{owner}/{repo}/pull/{number:int}", pull_page, methods=["GET"])]
