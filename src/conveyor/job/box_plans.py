"""The job's box and the base plan its commands (and sessions) start from: one source.

Hidden: the whole `$CONVEYOR_HOME` (other repositories and jobs, caches, answers), the
config's folder, the token and App key files, and the owner's real home. Readable back:
Conveyor's own interpreter and package (read-only), the PATH folders that lie in a
hidden one (`~/.local/bin`, `~/.cargo/bin`), so the tools the owner installed still run,
and the job's keeps (read-only: the agent's repository borrows their objects, and a
temporary worktree's git folder lies in one). `git_boxer` runs the git Conveyor must run
in the agent's own repository in the same box.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from conveyor.agents.boxed import TEST_SHARE_ENV
from conveyor.core.config import Config
from conveyor.git.runner import Boxer
from conveyor.sandbox import Box, BoxPlan, select_box
from conveyor.sandbox.tools import tool_paths
from conveyor.verify.boxing import Boxing, Opening, wrapped

# The keeps of a job's checkouts (`repo.git` beside `repo/`, the wiki's), in its folder.
KEEPS = ("repo.git", "wiki.git")


def _config_file(text: str, config_dir: Path) -> Path:
    path = Path(text).expanduser()
    return path if path.is_absolute() else config_dir / path


def hidden_paths(
    config: Config, config_dir: Path, environ: Mapping[str, str], repo_home: Path
) -> tuple[Path, ...]:
    """What no boxed process of this job may see (`repo_home` is `$CONVEYOR_HOME/<repo>`)."""
    found = [repo_home.parent, config_dir]
    account = config.account
    if account.token_file is not None:
        found.append(_config_file(account.token_file, config_dir))
    if account.app is not None:
        found.append(_config_file(account.app.private_key_file, config_dir))
    if environ.get("HOME"):
        found.append(Path(environ["HOME"]))
    return _unique(p for p in found if p != Path("/"))


def base_plan(
    job_dir: Path, checkout: Path, hidden: tuple[Path, ...], environ: Mapping[str, str]
) -> BoxPlan:
    """The plan a job's commands start from: HOME `job_dir/home`, tmp `job_dir/tmp` (not
    created here: `make_folders`). The test world's meeting folder (`TEST_SHARE_ENV`, set
    only by the tests) is writable too, as in the sessions' box: a test command there says
    where it got and waits for the test."""
    shared = environ.get(TEST_SHARE_ENV)
    return BoxPlan(
        cwd=checkout,
        home=job_dir / "home",
        tmp=job_dir / "tmp",
        hidden=hidden,
        readable=(*tool_paths(environ, hidden), *(job_dir / k for k in KEEPS)),
        writable=(Path(shared),) if shared else (),
    )


def make_folders(plan: BoxPlan) -> BoxPlan:
    """Create the plan's private HOME and tmp; the plan."""
    for folder in (plan.home, plan.tmp):
        folder.mkdir(parents=True, exist_ok=True)
    return plan


def job_box(config: Config) -> Box:
    """The box `[sandbox] mode` asks for (raises `BoxUnavailable` when none can be built)."""
    return select_box(config.sandbox.mode)


def command_boxing(box: Box, config: Config, plan: BoxPlan) -> Boxing:
    """The boxing of a job's commands: setup reaches exactly the hosts `[sandbox]
    setup_network` names, through the allowlisting proxy; no other command has a network."""
    hosts = config.sandbox.setup_network
    return Boxing(box, plan, "proxy" if hosts else "none", setup_hosts=hosts)


def git_boxer(boxing: Boxing) -> Boxer:
    """How the job runs git in an agent's repository: in its box, with no network, writing
    only the folder it runs in and reading what it names too (`Box.wrap`; bare unboxed)."""

    def box(argv: list[str], *, cwd: Path, readable: tuple[Path, ...]) -> list[str]:
        return wrapped(boxing, Opening(cwd, (), readable), {}, argv)

    return box


def _unique(paths: Iterable[Path]) -> tuple[Path, ...]:
    return tuple(dict.fromkeys(paths))
