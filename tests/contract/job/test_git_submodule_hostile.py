"""A submodule the agent plants: its `.gitmodules` can neither make the job's git step into the
submodule's folder nor stop it, and a moved gitlink is a change every reader sees.

The keep turns submodules off in its config (`diff.ignoreSubmodules = all`), but a
`.gitmodules` overrides that key per submodule: with `ignore = none` there, `git status` and
`git diff HEAD` in the keep ran `git status` in `vendor/lib`, whose `.git` (config, hooks) the
agent wrote: its fsmonitor ran outside the box. With `update = !command` every diff died. And
the key hid a gitlink the agent moved from every diff Conveyor read (the review's, the
judges', the scope checks'). Each git the job runs says on its command line how submodules
count (`git/keep.py`), so no `.gitmodules` is read.
"""

from __future__ import annotations

from pathlib import Path

from conveyor.core.config import Commands
from conveyor.git import GitEnv, plain, rev_parse, run_git
from conveyor.git.agent_repo import agent_git, harvest
from conveyor.git.checkout import dirty_paths
from conveyor.git.committers import untrailed_commits
from conveyor.git.plain import Tree
from conveyor.git.rebase import marker_lines
from conveyor.ops.local.finish_sync import changes_code, check_finished
from conveyor.ops.local.prepare_review import prepare_review
from conveyor.verify import setup_env
from conveyor.verify.context import Context
from conveyor.verify.env_facts import manifest
from conveyor.verify.judges import diff_text
from tests.contract.job.hostile_git import HOOKS, HostileJob
from tests.contract.job.test_git_hostile import _every_git_operation, _nothing_ran

SUB = "vendor/lib"


def _gitmodules(job: HostileJob, *, update: bool = False) -> str:
    """`.gitmodules` for `vendor/lib`: shown in every status, fetched with every fetch, and
    with `update` a command git refuses to read from this file."""
    text = f'[submodule "lib"]\n\tpath = {SUB}\n\turl = ./lib\n\tignore = none\n'
    text += "\tfetchRecurseSubmodules = true\n"
    if update:
        text += f"\tupdate = !{job.script('submodule-update')}\n"
    return text


def _plant_submodule(job: HostileJob, gitlink: str) -> str:
    """The agent commits `vendor/lib` as a submodule at `gitlink` and a `.gitmodules`, and makes
    `vendor/lib` a repository of its own whose config and hooks run the planted script; the
    agent's head."""
    repo = job.repo
    (repo.path / ".gitmodules").write_text(_gitmodules(job))
    agent_git(repo, "add", ".gitmodules")
    agent_git(repo, "update-index", "--add", "--cacheinfo", f"160000,{gitlink},{SUB}")
    agent_git(repo, "commit", "--quiet", "-m", "Vendor the library")
    sub = repo.path / SUB
    sub.mkdir(parents=True)
    run_git(["init", "--quiet", str(sub)], cwd=job.root, env=GitEnv())
    for key in ("core.fsmonitor", "diff.external", "core.pager", "core.sshCommand"):
        run_git(["config", key, str(job.script(key))], cwd=sub, env=GitEnv())
    for name in HOOKS:
        hook = sub / ".git" / "hooks" / name
        hook.write_text(job.script(f"sub-{name}").read_text())
        hook.chmod(0o755)
    (sub / "file.txt").write_text("the agent's\n")
    return harvest(repo) or ""


def _reads(job: HostileJob, base: str, head: str, tmp: Path) -> tuple[str, ...]:
    """Every read of the job's own git that diffs commits or the work tree; the paths the
    change touches as they say."""
    repo = job.repo
    tree = Tree(repo.path, repo.git_dir)
    dirty_paths(repo)
    manifest(tree)
    assert job.outside_marks() == "", "ran outside the box"
    setup_env.start_build(tree, tmp / "envs" / "key")
    check_finished(repo, "main")
    assert changes_code(repo, "main")
    assert marker_lines(repo, base, head) == ()
    assert untrailed_commits(repo, head, [base], "Pipeline-Agent", frozenset({"implementer"}))
    ctx = Context(repo.path, Commands(test="true"), {}, tmp / "logs", git_dir=repo.git_dir)
    assert f"+Subproject commit {base}" in diff_text(ctx, base, head)
    review = prepare_review(repo, "refs/remotes/origin/main", tmp / "review.diff")
    assert f"+Subproject commit {base}" in review.path.read_text()
    changed = {c.path for c in plain.changes(tree, base, head)}
    assert changed == set(review.paths)
    return tuple(sorted(changed))


def test_a_submodule_the_agent_plants_runs_no_git_in_its_folder_outside_the_box(
    job: HostileJob, tmp_path: Path
) -> None:
    """`ignore = none` in `.gitmodules` and a `vendor/lib/.git` whose fsmonitor, hooks and
    drivers run the planted script: every git operation of the job runs none of them outside
    the box, and every reader sees the new gitlink."""
    base = rev_parse(job.repo, "HEAD")
    head = _plant_submodule(job, base)
    assert _reads(job, base, head, tmp_path) == (".gitmodules", SUB)
    _every_git_operation(job)
    _nothing_ran(job, in_box=True)


def test_a_gitmodules_git_refuses_stops_none_of_the_jobs_reads(
    job: HostileJob, tmp_path: Path
) -> None:
    """`update = !command` in the work tree's `.gitmodules` (git dies reading it) neither stops
    a read of the job's git nor runs."""
    base = rev_parse(job.repo, "HEAD")
    head = _plant_submodule(job, base)
    (job.repo.path / ".gitmodules").write_text(_gitmodules(job, update=True))
    assert _reads(job, base, head, tmp_path) == (".gitmodules", SUB)
    assert job.outside_marks() == ""


def test_a_moved_gitlink_is_a_change_every_reader_sees(job: HostileJob, tmp_path: Path) -> None:
    """A submodule the base already has, moved by the agent to another commit (and nothing
    else): the review's diff, the judges' and the changes verify checks all show it."""
    base = rev_parse(job.repo, "HEAD")
    first = _plant_submodule(job, base)
    job.repo.path.joinpath(SUB).rename(tmp_path / "lib-aside")
    agent_git(job.repo, "update-index", "--cacheinfo", f"160000,{first},{SUB}")
    agent_git(job.repo, "commit", "--quiet", "-m", "Move the library")
    moved = harvest(job.repo) or ""
    tree = Tree(job.repo.path, job.repo.git_dir)
    assert {c.path for c in plain.changes(tree, first, moved)} == {SUB}
    review = prepare_review(job.repo, first, tmp_path / "review.diff")
    assert review.paths == (SUB,)
    assert f"+Subproject commit {first}" in review.path.read_text()
    assert plain.blob(tree, moved, SUB) is None
