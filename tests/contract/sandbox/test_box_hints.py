"""A boxed command that fails because of the box says what the box hid or blocked, and the
config line that fixes it (issue 46, item 3): on the command's result, in the
`environment` stop's note."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conveyor.core.config import Commands
from conveyor.core.verify import environment_note
from conveyor.sandbox import Box, BoxPlan
from conveyor.sandbox.tools import find_tools
from conveyor.verify.boxing import Boxing
from conveyor.verify.context import Context
from tests.fake_machine import FakeMachine, make_fake_machine, write_script

GEN = "#!/bin/sh\necho generated\n"

pytestmark = pytest.mark.contract


def _context(box: Box, tmp_path: Path, machine: FakeMachine, commands: Commands) -> Context:
    checkout, home, tmp = tmp_path / "repo", tmp_path / "box-home", tmp_path / "box-tmp"
    for folder in (checkout, home, tmp):
        folder.mkdir()
    environ = machine.environ(os.environ["PATH"])
    strict = [machine.config_dir]
    tools = find_tools(environ, strict, commands=[c for c in (commands.setup,) if c])
    plan = BoxPlan(cwd=checkout, home=home, tmp=tmp, hidden=(machine.home, *strict)).with_given(
        *tools.given
    )
    owner = tuple(environ.items())
    boxing = Boxing(box, plan, "proxy", owner=owner)
    env = {"PATH": environ["PATH"], "HOME": str(home)}
    return Context(checkout, commands, env, tmp_path / "logs", boxing=boxing)


@pytest.fixture
def machine(tmp_path: Path) -> FakeMachine:
    return make_fake_machine(tmp_path / "home" / "ada")


def test_a_tool_a_script_reaches_outside_everything_given_is_named_with_its_line(
    box: Box, tmp_path: Path, machine: FakeMachine
) -> None:
    """The setup script is given back (the command names it), but the generator it runs
    from a folder in the home nothing names is not: exit 127, and the result names the
    generator's folder with the `readable` line that gives it back."""
    generator = write_script(machine.home / "private-tools" / "bin" / "gen", GEN)
    script = tmp_path / "elsewhere" / "setup.sh"
    script.parent.mkdir()
    script.write_text(f"#!/bin/sh\n{generator}\n")
    commands = Commands(test="true", setup=f"sh {script}")
    ctx = _context(box, tmp_path, machine, commands)
    bare = Context(ctx.checkout, commands, ctx.env, tmp_path / "bare-logs")
    assert bare.run("setup", commands.setup, setup=True).ok
    result = ctx.run("setup", commands.setup, setup=True)
    assert result.exit_code == 127
    line = f'add `readable = ["{generator.parent.parent}"]` under [sandbox]'
    assert any(str(generator) in hint and line in hint for hint in result.box), result.box
    assert line in environment_note(result)


def test_a_tilde_path_is_named_as_the_boxs_own_home(
    box: Box, tmp_path: Path, machine: FakeMachine
) -> None:
    """`bash ~/setup.sh` finds the owner's script bare; boxed, `~` is the box's HOME: the
    result says so and gives the absolute path to write instead."""
    (machine.home / "setup.sh").write_text("echo set up\n")
    commands = Commands(test="true", setup="bash ~/setup.sh")
    ctx = _context(box, tmp_path, machine, commands)
    result = ctx.run("setup", commands.setup, setup=True)
    assert result.exit_code == 127
    assert any(str(machine.home / "setup.sh") in hint for hint in result.box), result.box


def test_a_program_on_a_path_folder_inside_the_config_folder_is_named_to_move(
    box: Box, tmp_path: Path, machine: FakeMachine
) -> None:
    """A PATH folder inside Conveyor's config folder is never given back: a command that
    runs a program from it fails 127, and the result says to move it, not to give it."""
    tool = write_script(machine.config_dir / "bin" / "gen-config", "#!/bin/sh\necho ok\n")
    commands = Commands(test="true", setup="gen-config")
    ctx = _context(box, tmp_path, machine, commands)
    env = dict(ctx.env) | {"PATH": f"{tool.parent}:{ctx.env['PATH']}"}
    owner = (*ctx.boxing.owner, ("PATH", env["PATH"])) if ctx.boxing else ()
    boxing = Boxing(ctx.boxing.box, ctx.boxing.plan, "proxy", owner=owner) if ctx.boxing else None
    ctx = Context(ctx.checkout, commands, env, ctx.logs_dir, boxing=boxing)
    result = ctx.run("setup", "gen-config", setup=True)
    assert result.exit_code == 127
    assert any("move it elsewhere" in hint and str(tool) in hint for hint in result.box)


def test_a_registry_setup_tried_is_named_with_the_setup_network_line(
    box: Box, tmp_path: Path, machine: FakeMachine
) -> None:
    """With no registry named, setup's proxy lets nothing through: the host it tried is
    named with the `setup_network` line that allows it."""
    fetch = (
        'python3 -c "import urllib.request; '
        "urllib.request.urlopen('https://pypi.org/simple/', timeout=5)\""
    )
    commands = Commands(test="true", setup=fetch)
    ctx = _context(box, tmp_path, machine, commands)
    result = ctx.run("setup", fetch, setup=True)
    assert not result.ok
    assert any('add "pypi.org" to `setup_network`' in hint for hint in result.box), result.box


def test_a_credential_store_a_failing_command_names_is_never_proposed(
    box: Box, tmp_path: Path, machine: FakeMachine
) -> None:
    """A hostile setup prints the owner's ssh key's path and exits 127: the result names no
    `readable` line for it (the output is the repository's code's)."""
    key = machine.secrets[0]  # ~/.ssh/id_ed25519
    command = f"echo 'cannot open {key}: No such file or directory'; exit 127"
    commands = Commands(test="true", setup=command)
    result = _context(box, tmp_path, machine, commands).run("setup", command, setup=True)
    assert result.exit_code == 127
    assert not any(".ssh" in hint for hint in result.box), result.box
