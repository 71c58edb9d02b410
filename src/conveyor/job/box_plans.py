"""The job's box and the base plan its commands (and sessions) start from: one source.

Hidden: the whole `$CONVEYOR_HOME` (other repositories and jobs, caches, answers), the
config's folder, the token and App key files, the owner's real home and the host sockets
the environment names; the box shows none of them (it binds only what it gives).
Given back read-only: the owner's tools, resolved to their install roots, Conveyor's own
interpreter, the paths the commands name outside the checkout and `[sandbox] readable`
(`sandbox/tools.py`), and the job's keeps (the agent's repository borrows their objects,
and a temporary worktree's git folder lies in one); writable besides the job's own
folders: `[sandbox] caches`. `git_boxer` runs the git Conveyor must run in the agent's
own repository in the same box.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from conveyor.agents.boxed import TEST_SHARE_ENV
from conveyor.core.config import Config
from conveyor.git.checkout import keep_of
from conveyor.git.runner import Boxer
from conveyor.sandbox import Box, BoxPlan, select_box
from conveyor.sandbox.plan import Given
from conveyor.sandbox.registries import Registry, setup_registries
from conveyor.sandbox.sockets import named_sockets
from conveyor.sandbox.tools import Tools, check_caches, find_tools
from conveyor.verify.boxing import Boxing, Opening, wrapped

# The keeps of a job's checkouts (`repo.git` beside `repo/`, the wiki's), in its folder.
KEEPS = (keep_of(Path("repo")).name, keep_of(Path("wiki")).name)


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
    found += named_sockets(environ)
    return _unique(p for p in found if p != Path("/"))


def owner_path(text: str, environ: Mapping[str, str]) -> Path:
    """A configured path: `~/` is the owner's home (not the box's)."""
    if text.startswith("~/") and environ.get("HOME"):
        return Path(environ["HOME"]) / text[2:]
    return Path(text)


def config_commands(config: Config) -> tuple[str, ...]:
    """Every command the config runs in a box."""
    c = config.commands
    found = (c.setup, c.test, c.test_files, c.lint, c.typecheck, c.teardown, c.lockfile)
    return tuple(t for t in (*found, c.migrate_up, c.migrate_down) if t)


def job_tools(
    config: Config, hidden: tuple[Path, ...], environ: Mapping[str, str], checkout: Path
) -> Tools:
    """What the job's boxes give back for the owner's tools, its commands and `readable`."""
    home = Path(environ["HOME"]) if environ.get("HOME") else None
    return find_tools(
        environ,
        [p for p in hidden if p != home],
        commands=config_commands(config),
        cwd=checkout,
        readable=[owner_path(p, environ) for p in config.sandbox.readable],
    )


def job_caches(config: Config, hidden: tuple[Path, ...], environ: Mapping[str, str]) -> Tools:
    """`[sandbox] caches` the job's boxes write, and those refused (a hidden path, a home)."""
    home = Path(environ["HOME"]) if environ.get("HOME") else None
    caches = [owner_path(p, environ) for p in config.sandbox.caches]
    return check_caches(caches, environ, [p for p in hidden if p != home])


def base_plan(
    config: Config,
    job_dir: Path,
    checkout: Path,
    hidden: tuple[Path, ...],
    environ: Mapping[str, str],
) -> BoxPlan:
    """The plan a job's commands start from: HOME `job_dir/home`, tmp `job_dir/tmp` (not
    created here: `make_folders`), the tools given back, `[sandbox] caches` writable. The
    test world's meeting folder (`TEST_SHARE_ENV`, set only by the tests) is writable too,
    as in the sessions' box: a test command there says where it got and waits for the test."""
    shared = environ.get(TEST_SHARE_ENV)
    caches = job_caches(config, hidden, environ).given
    plan = BoxPlan(
        cwd=checkout,
        home=job_dir / "home",
        tmp=job_dir / "tmp",
        hidden=hidden,
        writable=(*(c.path for c in caches), *((Path(shared),) if shared else ())),
    )
    keeps = [
        Given(job_dir / k, "a keep of the job's: the agent's repository borrows its objects")
        for k in KEEPS
    ]
    return plan.with_given(*job_tools(config, hidden, environ, checkout).given, *keeps)


def make_folders(plan: BoxPlan) -> BoxPlan:
    """Create the plan's private HOME and tmp, and the caches it writes; the plan."""
    for folder in (plan.home, plan.tmp, *plan.writable):
        folder.mkdir(parents=True, exist_ok=True)
    return plan


def job_box(config: Config) -> Box:
    """The box `[sandbox] mode` asks for (raises `BoxUnavailable` when none can be built)."""
    return select_box(config.sandbox.mode)


def command_boxing(
    box: Box, config: Config, plan: BoxPlan, environ: Mapping[str, str] | None = None
) -> Boxing:
    """The boxing of a job's commands: setup goes through the allowlisting proxy, which lets
    through exactly the hosts `setup_hosts` says (none: nothing, but each host setup tried
    is named when it fails); no other command has a network."""
    owner = tuple((k, environ[k]) for k in ("HOME", "PATH") if environ and k in environ)
    hosts = tuple(r.host for r in setup_hosts(config, environ or {}, plan.cwd))
    return Boxing(box, plan, "proxy", setup_hosts=hosts, owner=owner)


def setup_hosts(
    config: Config, environ: Mapping[str, str], checkout: Path | None
) -> tuple[Registry, ...]:
    """The hosts setup may reach: `[sandbox] setup_network` when the config names it, else
    the registries the setup's own tools would use (`sandbox/registries.py`)."""
    named = config.sandbox.setup_network
    if named is not None:
        return tuple(Registry(h, "[sandbox] setup_network") for h in named)
    where = checkout if checkout is not None and checkout.is_dir() else None
    # Without the shared cache commands see none of the owner's registry settings.
    owner = environ if config.commands.shared_cache else {}
    return setup_registries(config.commands.setup, owner, where)


def git_boxer(boxing: Boxing) -> Boxer:
    """How the job runs git in an agent's repository: in its box, with no network, writing
    only the folder it runs in and reading what it names too (`Box.wrap`; bare unboxed)."""

    def box(argv: list[str], *, cwd: Path, readable: tuple[Path, ...]) -> list[str]:
        return wrapped(boxing, Opening(cwd, (), readable), {}, argv)

    return box


def _unique(paths: Iterable[Path]) -> tuple[Path, ...]:
    return tuple(dict.fromkeys(paths))
