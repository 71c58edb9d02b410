"""Issue 44, routes 1-3: nothing an agent plants in its repository runs outside a box when
the job's git works, no project hook runs for (or refuses) the job's commits, and the token
goes only to the configured forge, whatever the checkout names.

Each test plants as a hostile session would (`hostile_git.py`), then runs every git
operation the job, the ops and verify run on a checkout: the commit tool, taking the
session's commits, the lost-changes status, the exit push, a sync with the base (a rebase),
a reset, verify's reads, a worktree and a shared setup's build, a rescue. The token is read
as the config says: from `token_env` and from `token_file`.
"""

from __future__ import annotations

import shutil

from conveyor.git import plain, rev_parse, run_git, try_rev_parse
from conveyor.git.agent_repo import changed, harvest
from conveyor.git.checkout import dirty_paths
from conveyor.git.plain import Tree
from conveyor.git.rebase import RebaseRun, abort_rebase, rebase
from conveyor.git.rescue import find_unpushed
from conveyor.job.effects.push import CommitRefused, commit_paths, unpushed_head
from conveyor.ops.local.sync_base import refresh_remote_refs
from conveyor.verify import setup_env
from conveyor.verify.env_facts import manifest
from tests.contract.job.hostile_git import (
    BRANCH,
    HOOKS,
    IDENTITY,
    REFUSING,
    HostileJob,
    agent_commits,
)


def _plant_hooks(job: HostileJob) -> None:
    """Every hook, in the agent's `.git/hooks` and in a `core.hooksPath` folder of its own;
    the ones projects use to refuse a commit or a push refuse everything."""
    own = job.repo.path / ".githooks"
    own.mkdir()
    for name in HOOKS:
        script = job.script(f"hook-{name}", status=1 if name in REFUSING else 0)
        for folder in (job.repo.path / ".git" / "hooks", own):
            shutil.copy(script, folder / name)
    job.agent_config(("core.hooksPath", str(own)))


def _plant_config(job: HostileJob) -> None:
    """Every config key that runs a command, with the attributes that call the drivers, and an
    included file with more."""

    def mark(name: str) -> str:
        return str(job.script(name))

    attributes = "* filter=evil diff=evil merge=evil\n"
    (job.repo.path / ".git" / "info").mkdir(exist_ok=True)
    (job.repo.path / ".git" / "info" / "attributes").write_text(attributes)
    (job.repo.path / ".gitattributes").write_text(attributes)
    included = job.repo.path / ".included.cfg"
    included.write_text(f"[diff]\n\texternal = {mark('diff.external')}\n")
    job.agent_config(
        ("include.path", str(included)),
        ("core.fsmonitor", mark("core.fsmonitor")),
        ("filter.evil.clean", mark("filter.clean")),
        ("filter.evil.smudge", mark("filter.smudge")),
        ("diff.evil.textconv", mark("diff.textconv")),
        ("diff.evil.command", mark("diff.command")),
        ("merge.evil.driver", mark("merge.driver")),
        ("core.sshCommand", mark("core.sshCommand")),
        ("core.editor", mark("core.editor")),
        ("sequence.editor", mark("sequence.editor")),
        ("core.pager", mark("core.pager")),
        ("gpg.program", mark("gpg.program")),
        ("commit.gpgsign", "true"),
        ("credential.helper", f"!{mark('credential.helper')}"),
        ("core.askPass", mark("core.askPass")),
        ("core.alternateRefsCommand", mark("core.alternateRefsCommand")),
        ("uploadpack.packObjectsHook", mark("uploadpack.packObjectsHook")),
        ("receive.procReceiveRefs", "refs"),
    )


def _plant_urls(job: HostileJob) -> None:
    """Every way a repository's config sends a push elsewhere: its URL, a push URL, URL
    rewrites for fetch and push, an HTTP proxy."""
    evil = f"{job.evil.url}/stolen.git"
    job.agent_config(
        ("remote.origin.url", evil),
        ("remote.origin.pushurl", evil),
        (f"url.{job.evil.url}/.insteadOf", f"{job.forge.url}/"),
        (f"url.{job.evil.url}/.pushInsteadOf", f"{job.forge.url}/"),
        ("http.proxy", job.evil.url),
    )


def _every_git_operation(job: HostileJob, *, own_config: bool = False) -> None:
    """What the job, the ops and verify do with git on a checkout, end to end.

    With `own_config`, the agent's repository has config of its own that changes what its
    git does (filters that empty files, a merge driver): a rebase there may then stop, in
    the box, as the agent's own would; it is aborted and the rest goes on."""
    repo = job.repo
    taken = harvest(repo)  # the session's commits, taken when it ends
    assert taken == rev_parse(repo, "HEAD")
    (repo.path / "notes.txt").write_text("made by the commit tool\n")
    sha = commit_paths(repo, ["notes.txt"], "Add the notes", "implementer")
    assert not isinstance(sha, CommitRefused), sha
    assert rev_parse(repo, "HEAD") == sha
    (repo.path / "calc.py").write_text("# edited, not committed\n")
    assert "calc.py" in dirty_paths(repo)
    changed(repo, "checkout", "--", "calc.py")
    pushed = job.pusher(sha, f"refs/heads/{BRANCH}")
    assert pushed.ok, pushed.error
    assert try_rev_parse(job.bare, f"refs/heads/{BRANCH}") == sha
    # A person moves the base; the job syncs onto it (a rebase) and pushes with lease.
    base = _move_base(job)
    refresh_remote_refs(repo, job.cache, job.forge_url)
    run = rebase(repo, "refs/remotes/origin/main")
    if run.finished:
        assert rev_parse(repo, "HEAD^^") == base
        moved = job.pusher(run.head, f"refs/heads/{BRANCH}", lease=sha)
        assert moved.ok, moved.error
        assert unpushed_head(repo) is None
    else:
        assert own_config, run
        abort_rebase(repo)
        assert rev_parse(repo, "HEAD") == sha
        run = RebaseRun(True, sha)
    # verify's reads, a worktree at the base, a shared setup's build.
    tree = Tree(repo.path, repo.git_dir)
    assert {c.path for c in plain.changes(tree, base, run.head)} >= {"notes.txt"}
    # Its clean filter (the agent's own, in the box) empties what its commits hold.
    expected = b"" if own_config else b"made by the commit tool\n"
    assert plain.blob(tree, run.head, "notes.txt") == expected
    where = job.root / "work" / "tree"
    worktree = plain.add_worktree(tree, where, base)
    assert plain.head(worktree) == base
    assert "notes.txt" not in manifest(worktree)
    plain.remove_worktree(tree, where)
    build = setup_env.start_build(tree, job.root / "envs" / "key")
    assert "notes.txt" in manifest(build)
    setup_env.nested_products(build)
    setup_env.products(build)
    # Back to the base, then a rescue reads the checkout as a leftover.
    changed(repo, "reset", "--quiet", "--hard", base)
    found = find_unpushed(repo, repo.path, ("refs/remotes/origin/main",), repo.git_dir)
    assert found is None


def _move_base(job: HostileJob) -> str:
    """A person's commit on the forge's `main`; its SHA."""
    seed = job.root / "seed"
    (seed / "README.md").write_text("# tool\n\nA person's line.\n")
    env = job.bare.env
    run_git(["commit", "--quiet", "-am", "A person's change"], cwd=seed, env=env)
    run_git(["push", "--quiet", str(job.bare.path), "HEAD:refs/heads/main"], cwd=seed, env=env)
    return rev_parse(job.bare, "refs/heads/main")


def _nothing_ran(job: HostileJob, *, in_box: bool = False) -> None:
    """Nothing planted ran outside the box; nor anywhere, unless `in_box` (the agent's own
    config, read by the git the job runs in the agent's repository, in the box)."""
    assert job.outside_marks() == "", "ran outside the box"
    if not in_box:
        assert job.marks() == "", "ran for one of the job's own git commands"
    assert not job.evil.seen, job.evil.seen


def test_no_hook_the_agent_plants_runs_or_refuses_the_jobs_git(job: HostileJob) -> None:
    """Every hook, refusing ones among them, in `.git/hooks` and in a `core.hooksPath` of
    the agent's: the job's commit, push, rebase, reset and reads run none and succeed."""
    agent_commits(job, {"calc.py": "def add(a, b):\n    return b + a\n"}, "Swap the terms")
    _plant_hooks(job)
    _every_git_operation(job)
    _nothing_ran(job)


def test_no_config_the_agent_plants_runs_a_command_for_the_jobs_git(job: HostileJob) -> None:
    """fsmonitor, clean and smudge filters, diff and merge drivers, textconv, an external
    diff, ssh, editors, pager, gpg, credential helpers, askpass, alternate refs, an upload-pack
    hook, and an included file: none runs outside the box for the job's git (in the box, the
    git working in the agent's repository is the agent's to configure)."""
    agent_commits(job, {"calc.py": "def add(a, b):\n    return b + a\n"}, "Swap the terms")
    _plant_config(job)
    _every_git_operation(job, own_config=True)
    _nothing_ran(job, in_box=True)


def test_the_push_goes_to_the_configured_forge_whatever_the_checkout_names(
    job: HostileJob,
) -> None:
    """The agent's repository points `origin`, its push URL, URL rewrites and a proxy at a
    listener: the job's push still lands on the forge, and the listener hears nothing."""
    agent_commits(job, {"calc.py": "def add(a, b):\n    return b + a\n"}, "Swap the terms")
    _plant_urls(job)
    _every_git_operation(job)
    _nothing_ran(job)
    assert not job.evil.got_token(job.token)
    assert any(s.credentials == f"x-access-token:{job.token}" for s in job.forge.seen)


def test_askpass_answers_only_the_forges_own_scheme_and_host(job: HostileJob) -> None:
    """Asked by a push to another host (or another scheme or port of the same host), the
    push op's askpass gives nothing: the listener asks for credentials and gets none."""
    from conveyor.git.token_push import push_ref

    agent_commits(job, {"calc.py": "def add(a, b):\n    return b + a\n"}, "Swap the terms")
    harvest(job.repo)
    for url in (f"{job.evil.url}/acme/tool.git", job.evil.url.replace("127.0.0.1", "localhost")):
        done = push_ref(job.repo, url, "HEAD", f"refs/heads/{BRANCH}", job.auth)
        assert not done.ok
    assert job.evil.seen, "the listener was asked"
    assert not job.evil.got_token(job.token)
    assert all(s.credentials is None for s in job.evil.seen), job.evil.seen


def test_a_projects_own_hooks_neither_run_for_nor_refuse_the_commit_tool(
    job: HostileJob,
) -> None:
    """A real project's setup installs hooks (husky's commitlint commit-msg, a pre-commit
    that runs the suite): the commit tool's commits neither run them nor are refused."""
    husky = job.repo.path / ".husky"
    husky.mkdir()
    for name in ("commit-msg", "pre-commit"):
        (husky / name).write_text(job.script(f"husky-{name}", status=1).read_text())
        (husky / name).chmod(0o755)
    job.agent_config(("core.hooksPath", ".husky"))
    (job.repo.path / "feature.py").write_text("X = 1\n")
    sha = commit_paths(job.repo, ["feature.py"], "add the feature", "implementer")
    assert not isinstance(sha, CommitRefused), sha
    message = run_git(["log", "-1", "--format=%B", sha], cwd=job.repo.path, env=job.repo.env)
    assert "Pipeline-Agent:" in message.stdout.decode()
    assert (
        IDENTITY.email
        in run_git(
            ["log", "-1", "--format=%ce", sha], cwd=job.repo.path, env=job.repo.env
        ).stdout.decode()
    )
    _nothing_ran(job)
