"""Reading and moving refs: rev-parse, merge-base, ancestry, update-ref, listing."""

from __future__ import annotations

from pathlib import Path

from conveyor.git.runner import Repo, git_text, run_git

ZERO_SHA = "0" * 40


def rev_parse(repo: Repo, rev: str) -> str:
    """The full SHA of the commit `rev` names; GitError when it names none."""
    return read_branch_commit(repo, rev) or git_text(
        repo, "rev-parse", "--verify", "--end-of-options", f"{rev}^{{commit}}"
    )


def try_rev_parse(repo: Repo, rev: str) -> str | None:
    """The full SHA of the commit `rev` names, or None when it names none."""
    if "\0" in rev:  # no name holds a NUL, and argv cannot carry one
        return None
    if (sha := read_branch_commit(repo, rev)) is not None:
        return sha
    done = run_git(
        ["rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"],
        cwd=repo.path,
        env=repo.env,
        ok_codes=(0, 1, 128),
    )
    return done.stdout.decode().strip() if done.returncode == 0 else None


# Only these name commits whatever the ref files hold: git refuses to point a branch at any
# other object, and fetch writes remote-tracking refs from the remote's branches.
BRANCH_PREFIXES = ("refs/heads/", "refs/remotes/")


def read_branch_commit(repo: Repo, rev: str) -> str | None:
    """The commit `HEAD` or a full branch or remote-tracking ref name points to, read from the
    ref files; None when `rev` is anything else, or the files do not say (git is asked then).

    A job resolves HEAD and `refs/remotes/origin/*` dozens of times (a `git rev-parse`
    process each, two thirds of its git processes). Only a plain repository in git's
    files format is read: a worktree, a reftable repository or a SHA-256 one is git's.
    """
    git_dir = _files_git_dir(repo)
    if git_dir is None:
        return None
    if rev == "HEAD":
        try:
            head = (git_dir / "HEAD").read_text().strip()
        except (OSError, UnicodeDecodeError):
            return None
        if _is_sha(head):
            return head
        rev = head.removeprefix("ref: ") if head.startswith("ref: ") else ""
    if not rev.startswith(BRANCH_PREFIXES) or not _plain_name(rev):
        return None
    sha = _loose_or_packed(git_dir, rev)
    return sha if sha is not None and _is_sha(sha) else None


def _files_git_dir(repo: Repo) -> Path | None:
    """The git dir of the work tree or bare repository at `repo.path` (its keep when it has
    one), when git keeps its refs there in files; None for a worktree (`.git` is a file, or
    the keep names a common dir) or a reftable repository."""
    if repo.env.git_dir is not None:
        keep = repo.env.git_dir
        plain = (keep / "refs").is_dir() and not (keep / "commondir").exists()
        return keep if plain and not (keep / "reftable").exists() else None
    path = repo.path
    dot_git = path / ".git"
    git_dir = dot_git if dot_git.is_dir() else path
    if not (git_dir / "refs").is_dir() or (git_dir / "reftable").exists():
        return None
    if git_dir is path and dot_git.exists():
        return None
    return git_dir


def _plain_name(ref: str) -> bool:
    parts = ref.split("/")
    return "\0" not in ref and all(
        p not in {"", ".", ".."} and not p.endswith(".lock") for p in parts
    )


def _loose_or_packed(git_dir: Path, ref: str) -> str | None:
    try:
        return (git_dir / ref).read_text().strip()
    except FileNotFoundError:
        return _packed(git_dir, ref)
    except (OSError, UnicodeDecodeError):
        return None


def read_ref(repo: Repo, ref: str) -> str | None:
    """The object a full ref name (`refs/heads/main`) points to, or None when it is absent.

    Reads the ref files directly (a loose ref, else `packed-refs`) so hot paths run no
    subprocess; git replaces ref files atomically, so a reader never sees half a ref.
    Symbolic refs, odd names and repositories whose refs are not plain files go to git.
    """
    git_dir = _files_git_dir(repo)
    if git_dir is None and not repo.path.is_dir():
        return None  # no repository there (yet)
    if git_dir is None or not ref.startswith("refs/") or not _plain_name(ref):
        return try_rev_parse(repo, ref)
    text = _loose_or_packed(git_dir, ref)
    if text is None:
        return None
    return text if _is_sha(text) else try_rev_parse(repo, ref)


def _packed(git_dir: Path, ref: str) -> str | None:
    try:
        lines = (git_dir / "packed-refs").read_text().splitlines()
    except FileNotFoundError:
        return None
    for line in lines:
        sha, _, name = line.partition(" ")
        if name == ref and _is_sha(sha):
            return sha
    return None


def _is_sha(text: str) -> bool:
    return len(text) == 40 and all(c in "0123456789abcdef" for c in text)


def merge_base(repo: Repo, a: str, b: str) -> str | None:
    """The best common ancestor of `a` and `b`, or None when their histories are unrelated."""
    done = run_git(["merge-base", a, b], cwd=repo.path, env=repo.env, ok_codes=(0, 1))
    return done.stdout.decode().strip() if done.returncode == 0 else None


def is_ancestor(repo: Repo, ancestor: str, descendant: str) -> bool:
    """Whether `ancestor` is reachable from `descendant` (a commit is its own ancestor)."""
    done = run_git(
        ["merge-base", "--is-ancestor", ancestor, descendant],
        cwd=repo.path,
        env=repo.env,
        ok_codes=(0, 1),
    )
    return done.returncode == 0


def update_ref(repo: Repo, ref: str, new: str, old: str | None = None) -> None:
    """Point `ref` at `new`; when `old` is given, only if it still points there.

    `old` of `ZERO_SHA` means the ref must not exist yet.
    """
    args = ["update-ref", "-m", "conveyor", ref, new]
    if old is not None:
        args.append(old)
    run_git(args, cwd=repo.path, env=repo.env)


def delete_ref(repo: Repo, ref: str, old: str | None = None) -> None:
    """Delete `ref`; when `old` is given, only if it still points there."""
    args = ["update-ref", "-d", ref]
    if old is not None:
        args.append(old)
    run_git(args, cwd=repo.path, env=repo.env)


def list_refs(repo: Repo, prefix: str = "refs/heads/") -> dict[str, str]:
    """Every ref under `prefix` (full names) mapped to the object it points to."""
    out = git_text(repo, "for-each-ref", "--format=%(objectname) %(refname)", prefix)
    refs: dict[str, str] = {}
    for line in out.splitlines():
        sha, _, name = line.partition(" ")
        refs[name] = sha
    return refs


def head_branch(repo: Repo) -> str | None:
    """The branch HEAD points to (short name), or None when HEAD is detached."""
    done = run_git(
        ["symbolic-ref", "--quiet", "--short", "HEAD"],
        cwd=repo.path,
        env=repo.env,
        ok_codes=(0, 1, 128),
    )
    return done.stdout.decode().strip() or None if done.returncode == 0 else None


def set_head(repo: Repo, branch: str) -> None:
    """Make HEAD a symbolic ref to `refs/heads/<branch>` (a bare repository's default branch)."""
    run_git(["symbolic-ref", "HEAD", f"refs/heads/{branch}"], cwd=repo.path, env=repo.env)
