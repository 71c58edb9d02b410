"""The owner's tools inside a real box: pyenv, nvm, pipx, cargo, a hand-installed tool and
a setup script outside the checkout run there as outside, and nothing else of the home
shows (issue 46, item 1)."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from conveyor.sandbox import Box, BoxPlan
from conveyor.sandbox.sockets import named_sockets
from conveyor.sandbox.tools import Tools, find_tools
from tests.fake_machine import FakeMachine, make_fake_machine

pytestmark = pytest.mark.contract


@dataclass(frozen=True)
class Setup:
    """A fake machine, a checkout, a script outside it, and the plan a job would build."""

    machine: FakeMachine
    checkout: Path
    script: Path
    tools: Tools
    plan: BoxPlan
    environ: dict[str, str]


@pytest.fixture
def setup(tmp_path: Path) -> Setup:
    machine = make_fake_machine(tmp_path / "home" / "ada")
    checkout, box_home, box_tmp = tmp_path / "repo", tmp_path / "box-home", tmp_path / "box-tmp"
    for folder in (checkout, box_home, box_tmp):
        folder.mkdir()
    (checkout / ".python-version").write_text("3.11.9\n")
    script = tmp_path / "elsewhere" / "bin" / "setup.sh"
    script.parent.mkdir(parents=True)
    (tmp_path / "elsewhere" / "lib").mkdir()
    (tmp_path / "elsewhere" / "lib" / "common.sh").write_text("echo common sourced\n")
    script.write_text('#!/bin/sh\n. "$(dirname "$0")/../lib/common.sh"\necho setup ran\n')
    script.chmod(0o755)
    environ = machine.environ()
    strict = [machine.config_dir, *named_sockets(environ)]
    commands = (f"bash {script}", "python -m pytest -q")
    tools = find_tools(environ, strict, commands=commands, cwd=checkout)
    plan = BoxPlan(
        cwd=checkout,
        home=box_home,
        tmp=box_tmp,
        writable=(checkout,),
        hidden=(machine.home, *strict),
    ).with_given(*tools.given)
    env = {"PATH": environ["PATH"], "HOME": str(box_home)}
    return Setup(machine, checkout, script, tools, plan, env)


def _boxed(box: Box, setup: Setup, command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        box.wrap(["/bin/sh", "-c", command], setup.plan),
        env=setup.environ,
        cwd=setup.checkout,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_the_tools_are_given_back_as_their_install_roots_and_no_more(setup: Setup) -> None:
    """pyenv's and nvm's roots, pipx's, cargo's bin (not its home), ~/.local/bin, the hand
    tool's folder and the script's project folder; never the home, ~/.local, ~/.config,
    ~/.ssh or the cargo home that holds its token."""
    m = setup.machine
    given = {g.path.resolve() for g in setup.tools.given}
    expected = {m.pyenv, m.nvm, m.pipx, m.cargo_bin, m.local_bin, m.hand_tool}
    assert {p.resolve() for p in expected} <= given
    assert setup.script.parent.parent.resolve() in given
    for wide in (m.home, m.home / ".local", m.home / ".config", m.home / ".cargo"):
        assert wide.resolve() not in given
    for secret in m.secrets:
        assert not any(secret.resolve().is_relative_to(g) for g in given), secret
    assert all(g.why for g in setup.tools.given)


def test_the_owners_tools_run_in_the_box_as_outside(box: Box, setup: Setup) -> None:
    """pyenv's shim picks the checkout's version, nvm's node, pipx's black (a link, a
    shebang, a venv made from a pyenv version), cargo, the hand-installed tool that reads
    its own data, and the setup script outside the checkout that sources its sibling."""
    command = (
        "python --version; node; black; cargo; mytool; "
        f"bash {setup.script}; PYENV_VERSION=3.12.4 python --version"
    )
    bare = _boxed(Box("none"), setup, command)
    boxed = _boxed(box, setup, command)
    expected = [
        "Python 3.11.9 (fake pyenv)",
        "v20.11.1-fake-nvm",
        "black, fake",
        "cargo-fake",
        "mytool data",
        "common sourced",
        "setup ran",
        "Python 3.12.4 (fake pyenv)",
    ]
    assert bare.stdout.splitlines() == expected, bare.stderr
    assert boxed.stdout.splitlines() == expected, boxed.stderr


def test_nothing_else_of_the_home_shows_in_the_box(box: Box, setup: Setup) -> None:
    """The ssh key, the config folder and its token, .npmrc, cargo's token and the keyring
    are readable bare and not there boxed."""
    reads = " ".join(f"cat {s} 2>/dev/null || echo absent;" for s in setup.machine.secrets)
    bare = _boxed(Box("none"), setup, reads).stdout.split()
    boxed = _boxed(box, setup, reads).stdout.split()
    assert "absent" not in bare
    assert boxed == ["absent"] * len(setup.machine.secrets)


def test_a_script_in_the_config_folder_is_refused_and_said(setup: Setup) -> None:
    """A command naming a script inside Conveyor's config folder does not get that folder
    given back: the refusal is recorded with why (what `--print-boundary` and `doctor`
    show)."""
    inside = setup.machine.config_dir / "setup.sh"
    inside.write_text("echo hi\n")
    tools = find_tools(
        setup.machine.environ(), [setup.machine.config_dir], commands=(f"sh {inside}",)
    )
    assert not any(g.path.resolve() == inside.resolve() for g in tools.given)
    (refused,) = [g for g in tools.refused if g.path.resolve() == inside.resolve()]
    assert "no box sees" in refused.why


def test_a_tool_folder_named_through_a_symlink_resolves_in_the_box(
    box: Box, tmp_path: Path
) -> None:
    """`~/.nix-profile/bin`, fnm's folder under the runtime folder, `/home` → `/var/home`: a
    PATH folder named through a symlink is bound at its real place and the symlink is laid,
    so the name PATH holds resolves inside as outside."""
    root = Path(tempfile.mkdtemp(prefix="conveyor-link-test-", dir="/var/tmp"))
    try:
        real = root / "store" / "tool-1.0"
        (real / "bin").mkdir(parents=True)
        tool = real / "bin" / "linked-tool"
        tool.write_text("#!/bin/sh\necho linked tool ran\n")
        tool.chmod(0o755)
        (root / "profile").symlink_to(real)
        environ = {
            "HOME": str(tmp_path / "nohome"),
            "PATH": f"{root / 'profile' / 'bin'}:/usr/bin:/bin",
        }
        checkout, home, tmp = tmp_path / "repo", tmp_path / "h", tmp_path / "t"
        for folder in (checkout, home, tmp):
            folder.mkdir()
        plan = BoxPlan(cwd=checkout, home=home, tmp=tmp, writable=(checkout,)).with_given(
            *find_tools(environ, []).given
        )
        done = subprocess.run(
            box.wrap(["/bin/sh", "-c", "linked-tool"], plan),
            env={"PATH": environ["PATH"], "HOME": str(home)},
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        assert done.stdout.strip() == "linked tool ran", done.stderr
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_a_command_naming_dev_null_or_proc_keeps_the_boxs_own(box: Box, tmp_path: Path) -> None:
    """Past bug: `mypy --cache-dir=/dev/null` named /dev/null, which was given back read-only
    over the box's own, and writes to /dev/null failed (git commits in sessions with it)."""
    environ = {"HOME": str(tmp_path / "nohome"), "PATH": "/usr/bin:/bin"}
    tools = find_tools(environ, [], commands=("mypy --cache-dir=/dev/null .", "cat /proc/cpuinfo"))
    assert not [
        g for g in tools.given if g.path.is_relative_to("/dev") or g.path.is_relative_to("/proc")
    ]
    checkout, home, tmp = tmp_path / "repo", tmp_path / "h", tmp_path / "t"
    for folder in (checkout, home, tmp):
        folder.mkdir()
    plan = BoxPlan(cwd=checkout, home=home, tmp=tmp, writable=(checkout,)).with_given(*tools.given)
    done = subprocess.run(
        box.wrap(["/bin/sh", "-c", "echo x > /dev/null && echo wrote"], plan),
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.stdout.strip() == "wrote", done.stderr


def test_an_output_path_in_tmp_stays_writable_even_when_the_host_has_it(
    box: Box, tmp_path: Path
) -> None:
    """`--junitxml=/tmp/…` names a file the host's /tmp happens to hold: the box's own /tmp
    stays writable there (it is not given back read-only), as before the allowlist box."""
    report = Path(tempfile.mkdtemp(prefix="conveyor-out-", dir="/tmp")) / "report.xml"
    report.write_text("the host's\n")
    try:
        command = f"echo '<testsuite/>' > {report} && cat {report}"
        environ = {"HOME": str(tmp_path / "nohome"), "PATH": "/usr/bin:/bin"}
        tools = find_tools(environ, [], commands=(command,))
        checkout, home, tmp = tmp_path / "repo", tmp_path / "h", tmp_path / "t"
        for folder in (checkout, home, tmp):
            folder.mkdir()
        (tmp / report.parent.name).mkdir()  # the box's /tmp has its own folder of that name
        plan = BoxPlan(cwd=checkout, home=home, tmp=tmp, writable=(checkout,))
        plan = plan.with_given(*tools.given)
        done = subprocess.run(
            box.wrap(["/bin/sh", "-c", command], plan),
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        assert done.stdout.strip() == "<testsuite/>", done.stderr
        assert report.read_text() == "the host's\n"
    finally:
        shutil.rmtree(report.parent, ignore_errors=True)
