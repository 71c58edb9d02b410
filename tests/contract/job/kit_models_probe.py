"""After `preload()`, a job's forge operations load no more of githubkit's models.

Run as a script by `test_fork_start.py` (a test process has long since loaded them):
`python kit_models_probe.py DIR`. It preloads as a forking parent does, then makes the
requests a job makes against the embedded forge, and prints one JSON object: the
githubkit modules those requests loaded.
"""

from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path

from conveyor.emulator.app.server import ForgeServer
from conveyor.emulator.model.records import bare_repo_path
from conveyor.forge.errors import NotFound
from conveyor.forge.github import token_forge
from conveyor.forge.types import LabelSpec
from conveyor.git import ZERO_SHA, GitEnv, Identity, Repo, commit_tree, rev_parse, update_ref
from conveyor.git.runner import git_text
from conveyor.job.fork_start import preload
from conveyor.testing.world import sample_template

REPO = "acme/probe"


def _branch(bare: Path, name: str) -> None:
    """A branch on the forge one commit past `main`, made in its bare repository."""
    repo = Repo(bare, GitEnv(identity=Identity("probe", "probe@example.invalid")))
    main = rev_parse(repo, "refs/heads/main")
    commit = commit_tree(repo, git_text(repo, "rev-parse", f"{main}^{{tree}}"), [main], "probe")
    update_ref(repo, f"refs/heads/{name}", commit, ZERO_SHA)


def main(out: Path) -> dict[str, list[str]]:
    """Preload, then a job's requests; the githubkit modules they loaded."""
    preload()
    with ForgeServer(out / "forge") as server:
        server.create_repo(REPO, sample_template())
        token = server.add_user("conveyor-bot")
        server.add_collaborator(REPO, "conveyor-bot")
        _branch(bare_repo_path(out / "forge", *REPO.split("/")), "agent/issue-1")
        before = set(sys.modules)
        forge = token_forge(REPO, token, base_url=server.url)
        issue = forge.create_issue("probe", "body")
        comment = forge.create_comment(issue.number, "state")
        forge.edit_comment(comment.id, "state, edited", issue.number)
        forge.list_comments(issue.number)
        forge.ensure_labels([LabelSpec("agent:working", "ededed", "probe")])
        forge.add_labels(issue.number, ["agent:working"])
        forge.remove_label(issue.number, "agent:working")
        with contextlib.suppress(NotFound):  # an error body: githubkit's BasicError
            forge.get_issue(999)
        pr = forge.create_pr("agent/issue-1", "main", "probe", "body")
        forge.find_pr("agent/issue-1")
        forge.edit_pr(pr.number, body="edited")
        forge.merge_pr(pr.number, pr.head_sha, "probe", "merged")
        loaded = sorted(m for m in set(sys.modules) - before if m.startswith("githubkit"))
    return {"loaded": loaded}


if __name__ == "__main__":
    print(json.dumps(main(Path(sys.argv[1]))))
