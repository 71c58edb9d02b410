"""The git layer against real git in temporary folders."""

from __future__ import annotations

from pathlib import Path

import pytest

from conveyor.git import (
    ZERO_SHA,
    DiffStat,
    GitEnv,
    GitError,
    Identity,
    Repo,
    checkout_detached,
    commit_message,
    commit_tree,
    count_commits,
    delete_ref,
    diff_stat,
    head_branch,
    init_bare,
    is_ancestor,
    list_refs,
    log_commits,
    merge_base,
    merge_tree,
    push,
    read_blob,
    read_ref,
    read_tree,
    rev_parse,
    run_git,
    tree_of,
    try_rev_parse,
    update_ref,
    write_tree_from_dir,
)
from conveyor.git.checkout import update_cache
from conveyor.git.refs import read_branch_commit
from tests.contract.git.workrepo import TEST_ENV, WorkRepo

pytestmark = pytest.mark.contract


def test_the_cache_tracks_origins_branches_has_none_of_its_own_and_prunes(
    tmp_path: Path, origin: tuple[Repo, WorkRepo]
) -> None:
    """The bare cache holds origin's branches as origin/* and no branch; an update drops
    deleted ones, and one made by `clone --bare` (the old layout) loses its stale branches."""
    bare, work = origin
    work.branch("topic")
    work.commit({"c.txt": "3\n"}, "topic work")
    work.push("topic")
    url = bare.path.as_uri()
    cache = update_cache(tmp_path / "cache.git", url, TEST_ENV)
    assert rev_parse(cache, "refs/remotes/origin/topic") == rev_parse(work.repo, "topic")
    assert list_refs(cache, "refs/heads/") == {}
    work.git("push", "--quiet", "origin", ":topic")
    update_cache(tmp_path / "cache.git", url, TEST_ENV)
    assert "refs/remotes/origin/topic" not in list_refs(cache, "refs/remotes/")
    assert "refs/remotes/origin/main" in list_refs(cache, "refs/remotes/")
    old = tmp_path / "old-cache.git"
    run_git(["clone", "--quiet", "--bare", "--", url, str(old)], cwd=tmp_path, env=TEST_ENV)
    work.git("checkout", "--quiet", "main")
    work.commit({"d.txt": "4\n"}, "after the old clone")
    work.push("main")
    stale = update_cache(old, url, TEST_ENV)
    assert list_refs(stale, "refs/heads/") == {}
    assert rev_parse(stale, "refs/remotes/origin/main") == rev_parse(work.repo, "HEAD")


def test_rev_parse_names_the_revision_and_git_stderr_when_missing(
    origin: tuple[Repo, WorkRepo],
) -> None:
    """rev-parse resolves a branch; a missing one raises GitError carrying argv and stderr."""
    bare, work = origin
    assert rev_parse(bare, "main") == rev_parse(work.repo, "HEAD")
    assert try_rev_parse(bare, "nope") is None
    with pytest.raises(GitError) as caught:
        rev_parse(bare, "nope")
    assert caught.value.argv[:2] == ("git", "rev-parse")
    assert caught.value.stderr
    assert "rev-parse" in str(caught.value)


def test_merge_base_and_ancestry(origin: tuple[Repo, WorkRepo]) -> None:
    """merge-base finds the fork point; is-ancestor follows history one way only."""
    _, work = origin
    fork = rev_parse(work.repo, "HEAD")
    work.branch("topic")
    tip = work.commit({"c.txt": "3\n"}, "topic work")
    assert merge_base(work.repo, "main", "topic") == fork
    assert is_ancestor(work.repo, fork, tip)
    assert not is_ancestor(work.repo, tip, fork)


def test_merge_tree_reports_clean_merges_and_conflicted_paths(
    origin: tuple[Repo, WorkRepo],
) -> None:
    """Disjoint edits merge clean; the same line edited twice names the conflicting path."""
    _, work = origin
    work.branch("left", "main")
    work.commit({"a.txt": "left\n"}, "left edit")
    work.branch("right", "main")
    work.commit({"a.txt": "right\n", "new file.txt": "x\n"}, "right edit")
    work.branch("other", "main")
    work.commit({"b.txt": "other\n"}, "other edit")
    clean = merge_tree(work.repo, "left", "other")
    assert clean.clean
    assert clean.conflicts == ()
    assert read_blob(work.repo, clean.tree, "a.txt") == b"left\n"
    assert read_blob(work.repo, clean.tree, "b.txt") == b"other\n"
    dirty = merge_tree(work.repo, "left", "right")
    assert not dirty.clean
    assert dirty.conflicts == ("a.txt",)


def test_commit_tree_and_update_ref_make_a_squash_commit(origin: tuple[Repo, WorkRepo]) -> None:
    """A commit written with commit-tree carries the fixed identity and moves the ref."""
    bare, _ = origin
    main = rev_parse(bare, "main")
    squasher = bare.with_identity(Identity("Squasher", "sq@example.com"), "1700000100 +0000")
    sha = commit_tree(squasher, tree_of(bare, "main~1"), [main], "Revert (#1)\n\nbody\n")
    update_ref(bare, "refs/heads/main", sha, main)
    assert rev_parse(bare, "main") == sha
    assert commit_message(bare, "main") == "Revert (#1)\n\nbody"
    line = run_git(["log", "-1", "--format=%an <%ae> %at"], cwd=bare.path, env=TEST_ENV)
    assert line.stdout.decode().strip() == "Squasher <sq@example.com> 1700000100"
    with pytest.raises(GitError):
        update_ref(bare, "refs/heads/main", main, main)  # stale expected old value


def test_update_ref_with_zero_old_creates_only_and_delete_ref_removes(
    origin: tuple[Repo, WorkRepo],
) -> None:
    """A zero old value refuses to overwrite an existing ref; delete removes it."""
    bare, _ = origin
    main = rev_parse(bare, "main")
    update_ref(bare, "refs/heads/new", main, ZERO_SHA)
    with pytest.raises(GitError):
        update_ref(bare, "refs/heads/new", main, ZERO_SHA)
    delete_ref(bare, "refs/heads/new", main)
    assert try_rev_parse(bare, "refs/heads/new") is None


def test_log_commits_lists_subjects_oldest_first(origin: tuple[Repo, WorkRepo]) -> None:
    """The commits between two revisions come oldest first with their subjects."""
    _, work = origin
    base = rev_parse(work.repo, "HEAD")
    work.branch("topic")
    work.commit({"c.txt": "3\n"}, "add c")
    work.commit({"d.txt": "4\n"}, "add d")
    assert [c.subject for c in log_commits(work.repo, base, "topic")] == ["add c", "add d"]
    assert [c.subject for c in log_commits(work.repo, None, "main")] == ["first", "second"]


def test_write_tree_from_dir_and_read_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A plain folder becomes a tree in a bare repository, untouched, whatever the user ignores."""
    (tmp_path / "home" / ".config" / "git").mkdir(parents=True)
    (tmp_path / "home" / ".config" / "git" / "ignore").write_text("*.md\n")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    src = tmp_path / "src"
    (src / "pkg").mkdir(parents=True)
    (src / "pkg" / "m.py").write_text("x = 1\n")
    (src / "README.md").write_text("hi\n")
    bare = init_bare(tmp_path / "r.git", TEST_ENV, default_branch="trunk")
    tree = write_tree_from_dir(bare, src, tmp_path / "index")
    assert [e.path for e in read_tree(bare, tree)] == ["README.md", "pkg/m.py"]
    assert not (src / ".git").exists()
    assert head_branch(bare) == "trunk"


def test_push_moves_the_remote_branch_and_rejects_non_fast_forward(
    tmp_path: Path, origin: tuple[Repo, WorkRepo]
) -> None:
    """push updates the remote; a non-fast-forward push fails with git's reason."""
    bare, _ = origin
    url = bare.path.as_uri()
    cache = update_cache(tmp_path / "cache.git", url, TEST_ENV)
    old = rev_parse(cache, "origin/main~1")
    push(cache, url, [f"{old}:refs/heads/older"])
    assert rev_parse(bare, "older") == old
    with pytest.raises(GitError) as caught:
        push(cache, url, [f"{old}:refs/heads/main"])
    assert caught.value.returncode != 0


def test_machine_config_does_not_leak_in(tmp_path: Path, origin: tuple[Repo, WorkRepo]) -> None:
    """A global config given to GitEnv is read; without one nothing from HOME is."""
    bare, _ = origin
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text("[alias]\n  leaked = rev-parse\n")
    config = tmp_path / "gitconfig"
    config.write_text("[alias]\n  mine = rev-parse\n")
    mine = Repo(bare.path, GitEnv(config_global=config, extra={"HOME": str(home)}))
    assert run_git(["mine", "HEAD"], cwd=bare.path, env=mine.env).returncode == 0
    with pytest.raises(GitError):
        run_git(["leaked", "HEAD"], cwd=bare.path, env=mine.env)


def test_diff_stat_and_count_commits_measure_a_branch(origin: tuple[Repo, WorkRepo]) -> None:
    """A branch's size: its commits, files, added and deleted lines."""
    _, work = origin
    base = rev_parse(work.repo, "HEAD")
    work.branch("topic")
    work.commit({"a.txt": "uno\ndos\n"}, "rewrite a")
    work.commit({"c.txt": "3\n"}, "add c")
    assert count_commits(work.repo, base, "topic") == 2
    assert diff_stat(work.repo, base, "topic") == DiffStat(files=2, additions=3, deletions=1)


def test_read_ref_reads_loose_and_packed_refs_without_git(origin: tuple[Repo, WorkRepo]) -> None:
    """A loose ref, a packed one and a missing one read as git would answer."""
    bare, _ = origin
    main = rev_parse(bare, "main")
    assert read_ref(bare, "refs/heads/main") == main
    update_ref(bare, "refs/heads/packed", main)
    run_git(["pack-refs", "--all"], cwd=bare.path, env=TEST_ENV)
    assert not (bare.path / "refs" / "heads" / "packed").exists()
    assert read_ref(bare, "refs/heads/packed") == main
    assert read_ref(bare, "refs/heads/missing") is None
    assert read_ref(bare, "refs/heads/../../HEAD") is None


def test_relative_paths_work_from_any_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """init, write-tree and a checkout take paths relative to the caller's folder."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "f.txt").write_text("f\n")
    bare = init_bare(Path("data/r.git"), TEST_ENV)
    tree = write_tree_from_dir(bare, Path("plain"), Path("index"))
    sha = commit_tree(bare, tree, [], "first\n")
    update_ref(bare, "refs/heads/main", sha)
    work = checkout_detached(bare, sha, Path("co"))
    assert (work.path / "f.txt").read_text() == "f\n"


def _git_says(repo: Repo, rev: str) -> str | None:
    done = run_git(["rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"], cwd=repo.path,
                   env=TEST_ENV, ok_codes=(0, 1, 128))  # fmt: skip
    return done.stdout.decode().strip() or None


def test_head_and_branch_refs_resolve_as_git_resolves_them_loose_packed_detached_or_in_a_worktree(
    origin: tuple[Repo, WorkRepo], tmp_path: Path
) -> None:
    """rev_parse's answer from the ref files is git's, and anything else is asked of git."""
    bare, work = origin
    repo = work.repo
    work.branch("agent/issue-1")
    work.commit({"c.txt": "three\n"}, "third")
    cases = [
        (repo, ["HEAD", "refs/heads/agent/issue-1", "refs/remotes/origin/main", "refs/heads/main"]),
        (bare, ["HEAD", "refs/heads/main", "refs/heads/nope", "refs/remotes/origin/nope"]),
    ]
    for target, revs in cases:
        for rev in revs:
            assert try_rev_parse(target, rev) == _git_says(target, rev), (target.path, rev)
    assert read_branch_commit(repo, "HEAD") == _git_says(repo, "HEAD")  # from the files
    run_git(["pack-refs", "--all"], cwd=work.path, env=TEST_ENV)
    assert read_branch_commit(repo, "refs/heads/agent/issue-1") == _git_says(repo, "HEAD")
    work.git("checkout", "--quiet", "--detach", "HEAD~1")
    assert read_branch_commit(repo, "HEAD") == _git_says(repo, "HEAD") == _git_says(repo, "main")
    worktree = tmp_path / "tree"
    work.git("worktree", "add", "--quiet", "--detach", str(worktree), "main~1")
    in_tree = Repo(worktree, TEST_ENV)
    assert read_branch_commit(in_tree, "HEAD") is None  # a worktree's HEAD is git's to read
    assert rev_parse(in_tree, "HEAD") == _git_says(repo, "main~1")
    for other in (
        "main",
        "HEAD~1",
        "refs/tags/none",
        "refs/heads/../HEAD",
        "refs/remotes/origin/HEAD",
    ):
        assert read_branch_commit(repo, other) is None, other
    unborn = WorkRepo.init(tmp_path / "unborn").repo
    assert try_rev_parse(unborn, "HEAD") is None
    with pytest.raises(GitError):
        rev_parse(unborn, "refs/heads/main")
