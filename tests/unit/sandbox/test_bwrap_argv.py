"""The bwrap argv a plan turns into: namespaces, the read-only root, covers, binds back in."""

from __future__ import annotations

from pathlib import Path

from conveyor.sandbox import Box, BoxPlan
from conveyor.sandbox.bwrap import bwrap_argv
from conveyor.sandbox.describe import describe

BWRAP = Path("/opt/bwrap")


def _plan(tmp_path: Path, **kwargs: object) -> BoxPlan:
    home = tmp_path / "conveyor-home"
    checkout = home / "runs" / "issue-1" / "repo"
    for path in (checkout, home / "box" / "home", home / "box" / "tmp"):
        path.mkdir(parents=True, exist_ok=True)
    base: dict[str, object] = {
        "cwd": checkout,
        "home": home / "box" / "home",
        "tmp": home / "box" / "tmp",
        "writable": (checkout,),
        "hidden": (home,),
    }
    return BoxPlan(**(base | kwargs))  # type: ignore[arg-type]


def _pairs(argv: list[str], option: str) -> list[str]:
    return [argv[i + 1] for i, a in enumerate(argv) if a == option]


def test_mode_none_runs_the_argv_itself(tmp_path: Path) -> None:
    """Mode none wraps nothing."""
    assert Box("none").wrap(["true"], _plan(tmp_path)) == ["true"]


def test_the_argv_ends_with_the_command_after_a_separator(tmp_path: Path) -> None:
    """The command's own words come last, after `--`, untouched."""
    argv = bwrap_argv(BWRAP, _plan(tmp_path), ["sh", "-c", "--ro-bind / /"])
    assert argv[0] == str(BWRAP)
    assert argv[-4:] == ["--", "sh", "-c", "--ro-bind / /"]


def test_every_namespace_but_the_network_is_private_and_the_network_too_by_default(
    tmp_path: Path,
) -> None:
    """User, pid, ipc and uts namespaces always; the network one unless the plan shares it."""
    closed = bwrap_argv(BWRAP, _plan(tmp_path), ["true"])
    for option in ("--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts"):
        assert option in closed
    assert "--unshare-net" in closed
    shared = bwrap_argv(BWRAP, _plan(tmp_path, network="shared"), ["true"])
    assert "--unshare-net" not in shared


def test_a_writable_path_inside_a_hidden_one_is_bound_after_the_cover(tmp_path: Path) -> None:
    """The checkout inside Conveyor's home (under /tmp, where its mount points would be made
    in the box's writable /tmp) is bound back after the home is covered, and the cover is
    made read-only afterwards."""
    plan = _plan(tmp_path)
    argv = bwrap_argv(BWRAP, plan, ["true"])
    home, checkout = str((tmp_path / "conveyor-home").resolve()), str(plan.cwd.resolve())
    cover = next(i for i, a in enumerate(argv) if a == "--tmpfs" and argv[i + 1] == home)
    bind = next(i for i, a in enumerate(argv) if a == "--bind" and argv[i + 1] == checkout)
    remount = next(i for i, a in enumerate(argv) if a == "--remount-ro" and argv[i + 1] == home)
    assert cover < bind < remount
    assert _pairs(argv, "--chdir") == [checkout]


def test_a_readable_path_inside_a_writable_one_is_not_bound_read_only(tmp_path: Path) -> None:
    """A readable file in a writable folder keeps the folder's write access (no read-only
    bind over it); one under a hidden folder inside that folder is bound read-only."""
    shared = tmp_path / "shared"
    loose, covered = shared / "scenario.json", shared / "hidden" / "kept.txt"
    covered.parent.mkdir(parents=True)
    loose.write_text("{}")
    covered.write_text("kept")
    plan = _plan(
        tmp_path,
        writable=(shared,),
        readable=(loose, covered),
        hidden=(tmp_path / "conveyor-home", covered.parent),
    )
    read_only = _pairs(bwrap_argv(BWRAP, plan, ["true"]), "--ro-bind-try")
    assert str(loose.resolve()) not in read_only
    assert str(covered.resolve()) in read_only


def test_a_hidden_file_inside_a_bind_is_covered_with_dev_null(tmp_path: Path) -> None:
    """A token file inside a folder the plan gives back is covered with /dev/null; one
    outside everything bound gets no mount at all (its path is not in the box's mount
    table), nor does a missing hidden path."""
    tools = tmp_path / "tools"
    tools.mkdir()
    inside, outside = tools / "token", tmp_path / "token"
    for token in (inside, outside):
        token.write_text("secret")
    plan = _plan(tmp_path, readable=(tools,), hidden=(inside, outside, tmp_path / "absent"))
    argv = bwrap_argv(BWRAP, plan, ["true"])
    at = argv.index(str(inside.resolve()))
    assert argv[at - 2 : at] == ["--ro-bind", "/dev/null"]
    assert str(outside.resolve()) not in argv
    assert str((tmp_path / "absent").resolve()) not in argv


def test_the_root_is_empty_but_the_system_folders_and_read_only_at_the_end(
    tmp_path: Path,
) -> None:
    """No bind of the host's root; /usr read-only; /run, /home and /var not there at all;
    the root remounted read-only after the last mount."""
    argv = bwrap_argv(BWRAP, _plan(tmp_path), ["true"])
    bound = {argv[i + 2] for i, a in enumerate(argv) if a in ("--ro-bind", "--bind")}
    assert "/" not in bound
    assert "/usr" in _pairs(argv, "--ro-bind")
    assert not {"/run", "/home", "/var", "/root"} & bound
    assert argv[argv.index("--chdir") - 2 : argv.index("--chdir")] == ["--remount-ro", "/"]


def test_the_private_tmp_and_home_are_the_plans_folders(tmp_path: Path) -> None:
    """The plan's tmp is bound at /tmp and is TMPDIR; its home is bound writable and is HOME."""
    plan = _plan(tmp_path)
    argv = bwrap_argv(BWRAP, plan, ["true"])
    tmp = argv.index(str(plan.tmp.resolve()))
    assert argv[tmp - 1 : tmp + 2] == ["--bind", str(plan.tmp.resolve()), "/tmp"]
    assert str(plan.home.resolve()) in _pairs(argv, "--bind")
    envs = [argv[i + 1 : i + 3] for i, a in enumerate(argv) if a == "--setenv"]
    assert ["HOME", str(plan.home)] in envs
    assert ["TMPDIR", "/tmp"] in envs


def test_the_boundary_is_drawn_from_the_same_mounts(tmp_path: Path) -> None:
    """`describe` lists the hidden home, the writable checkout and the network of the plan."""
    plan = _plan(tmp_path)
    drawn = describe(Box("bwrap", BWRAP), plan)
    access = {m["path"]: m["access"] for m in drawn["mounts"]}
    assert access[str((tmp_path / "conveyor-home").resolve())] == "hidden"
    assert access[str(plan.cwd.resolve())] == "rw"
    assert drawn["network"] == "own loopback only"
    assert describe(Box("none"), plan)["mounts"] == []
