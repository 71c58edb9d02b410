"""A session's box: its plan (what the CLI may see and write), its proxy, the wrapped argv.

Every session's CLI starts inside a box with network "proxy" (`sandbox/proxy.py` outside,
`sandbox/bridge.py` inside): writable only the checkout (with its `.git`) and the session
folder (its private HOME and tmp among it); readable the job's folder, the issue's run
folder, the scenario, the job's git config, Conveyor's interpreter and package and the
CLI's install folder; the owner's HOME, `CONVEYOR_HOME` and whatever the job hides are not
there at all. With `[sandbox] mode = "none"` the CLI runs unconfined, as before.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import py_compile
import shutil
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

import conveyor
from conveyor.core.backends import facts_of
from conveyor.core.session import SessionRole, SessionSpec
from conveyor.core.session_box import SandboxMode
from conveyor.sandbox import Box, BoxPlan, select_box
from conveyor.sandbox.allowlist import Allowlist, model_hosts
from conveyor.sandbox.proxy import LOG_NAME, Blocked, NetworkProxy, bridge_argv
from conveyor.sandbox.sockets import named_sockets

TIMESTAMP = py_compile.PycInvalidationMode.TIMESTAMP  # what imports write, and `_fresh` reads
SYSTEM = (Path("/usr"), Path("/bin"), Path("/lib"), Path("/opt"))
# A testing switch: the folder a test and its scripted sessions meet in (files a session
# touches to say where it got, files it waits for), writable in the box. Paths the box
# hides stay hidden inside it (deeper mounts cover it). Only the test world sets it.
TEST_SHARE_ENV = "CONVEYOR_TEST_SHARED_DIR"


def in_box_sources() -> list[Path]:
    """Conveyor's own modules a box runs: the scripted agent's package (and the packages it
    is imported through) and the bridge."""
    package = Path(conveyor.__file__).resolve().parent
    scripted = package / "agents" / "scripted"
    return [
        package / "__init__.py",
        package / "agents" / "__init__.py",
        *sorted(scripted.glob("*.py")),
        package / "sandbox" / "bridge.py",
    ]


def write_bytecode(sources: Iterable[Path]) -> None:
    """Write the bytecode of `sources` where it is missing or stale (up-to-date files are
    left as they are; a folder that cannot be written is skipped, as Python itself does).

    Inside a box Conveyor's package is read-only, so an interpreter there cannot keep the
    bytecode it compiles: a module only ever imported in a box (the scripted agent's) was
    compiled again at every session's start. Writing it here, outside, once, fixes that.
    It is written whatever this process's own `PYTHONDONTWRITEBYTECODE` says: sessions run
    with the allowlisted environment, without it, and unboxed they write these files.
    """
    for source in sources:
        cached = importlib.util.cache_from_source(str(source))
        if _fresh(source, Path(cached)):
            continue
        with contextlib.suppress(OSError, py_compile.PyCompileError):
            py_compile.compile(str(source), cfile=cached, doraise=True, invalidation_mode=TIMESTAMP)


def _fresh(source: Path, cached: Path) -> bool:
    """Whether `cached` is the timestamped bytecode of `source` as it is now."""
    try:
        with cached.open("rb") as pyc:
            head = pyc.read(16)
        stat = source.stat()
    except OSError:
        return False
    mtime, size = int(stat.st_mtime) & 0xFFFFFFFF, stat.st_size & 0xFFFFFFFF
    expected = importlib.util.MAGIC_NUMBER + bytes(4) + mtime.to_bytes(4, "little")
    return head == expected + size.to_bytes(4, "little")


@functools.cache
def cache_box_bytecode() -> None:
    """`write_bytecode` of `in_box_sources`, once a process."""
    write_bytecode(in_box_sources())


def install_root(executable: str) -> Path:
    """The folder a CLI is installed in: above its `node_modules`, else its own folder."""
    path = Path(executable).absolute()
    for candidate in (path, path.resolve()):
        parts = candidate.parts
        if "node_modules" in parts:
            return Path(*parts[: parts.index("node_modules")])
    return path.resolve().parent


def _outside_system(path: Path) -> bool:
    return not any(path.is_relative_to(root) for root in SYSTEM)


def readable_paths(spec: SessionSpec, executable: str, environ: Mapping[str, str]) -> list[Path]:
    """What the CLI reads outside what it writes: its install, node, Python, Conveyor."""
    package = Path(conveyor.__file__).resolve().parent
    found = [install_root(executable), package.parent, Path(sys.prefix), Path(sys.base_prefix)]
    node = shutil.which("node", path=environ.get("PATH"))
    if node is not None:
        found.append(Path(node).resolve().parents[1])
    if spec.session_dir.parent.name == "sessions":  # a job's: jobs/<id>/sessions/<key>
        found.append(spec.session_dir.parent.parent)
    for extra in (spec.issue_file, spec.scenario, spec.git_config):
        if extra is not None:
            found.append(extra.parent if extra == spec.issue_file else extra)
    found += spec.sandbox.readable
    return [path for path in found if _outside_system(path) and path != Path("/")]


def hidden_paths(spec: SessionSpec, environ: Mapping[str, str]) -> list[Path]:
    """What the CLI must not see: the owner's HOME, Conveyor's home, the host sockets the
    environment names, the job's own list."""
    found = [Path(environ[name]) for name in ("HOME", "CONVEYOR_HOME") if environ.get(name)]
    return list(dict.fromkeys([*found, *named_sockets(environ), *spec.sandbox.hidden]))


def named_urls(spec: SessionSpec, environ: Mapping[str, str]) -> list[str]:
    """The endpoints the job names for the session: its base URL, the `*_BASE_URL`
    variables it passes, and URLs in the backend's settings (codex's provider)."""
    found = [spec.base_url] if spec.base_url else []
    found += [v for k, v in environ.items() if k.endswith("_BASE_URL") and "://" in v]
    pending: list[object] = [spec.backend_settings]
    while pending:
        item = pending.pop()
        if isinstance(item, Mapping):
            pending.extend(item.values())
        elif isinstance(item, list | tuple):
            pending.extend(item)
        elif isinstance(item, str) and item.startswith(("http://", "https://")):
            found.append(item)
    return found


def session_allowlist(spec: SessionSpec, environ: Mapping[str, str]) -> Allowlist:
    """The hosts the session may reach: the backend's model hosts, `allow_hosts`, and the
    endpoints the job names (the fake model's loopback port)."""
    hosts = (*model_hosts(spec.backend, spec.model), *spec.sandbox.allow_hosts)
    return Allowlist.of(hosts, named_urls(spec, environ))


@dataclass
class SessionBox:
    """One launch's box: `wrap` turns the CLI's argv into the boxed one; `close` ends the proxy."""

    box: Box
    plan: BoxPlan | None
    proxy: NetworkProxy | None

    def wrap(self, argv: list[str]) -> list[str]:
        """The argv that starts `argv` in the box (itself when unconfined)."""
        if self.plan is None or self.proxy is None:
            return list(argv)
        return self.box.wrap(bridge_argv(self.proxy, argv), self.plan)

    def resolved(self, spec: SessionSpec) -> SessionSpec:
        """`spec` with the mode the box has (`bwrap` or `none`), which the backends read."""
        mode: SandboxMode = "bwrap" if self.box.confined else "none"
        return replace(spec, sandbox=replace(spec.sandbox, mode=mode))

    def close(self) -> None:
        """Stop the session's proxy."""
        if self.proxy is not None:
            self.proxy.close()


def _bound_back(path: Path, share: Path, covers: list[Path]) -> bool:
    """Whether `path` needs its own read-only bind: outside `share`, or under a cover."""
    return not path.is_relative_to(share) or any(path.is_relative_to(c) for c in covers)


def session_plan(
    spec: SessionSpec, environ: Mapping[str, str], executable: str, sockets: tuple[Path, ...]
) -> BoxPlan:
    """What the session's CLI sees (`sockets`: the MCP endpoint's and the proxy's folders)."""
    control = tuple(p for p in (spec.control_socket,) if p is not None and p.exists())
    # codex's own sandbox kept a reader's checkout read-only; in the box, the box does.
    facts = facts_of(spec.backend)
    reader = spec.role is SessionRole.READER and facts is not None and facts.reader_read_only
    own = (spec.session_dir,) if reader else (spec.cwd, spec.session_dir)
    writable: tuple[Path, ...] = (*own, *spec.sandbox.caches)
    readable = [*readable_paths(spec, executable, environ), *([spec.cwd] if reader else [])]
    hidden = hidden_paths(spec, environ)
    if environ.get(TEST_SHARE_ENV):
        share = Path(environ[TEST_SHARE_ENV])
        writable = (share, *writable)
        # A read-only bind inside it, where nothing hides it, would take its writes away
        # (a test's scenario file a session rewrites).
        readable = [p for p in readable if _bound_back(p, share, [*hidden, spec.cwd])]
    return BoxPlan(
        cwd=spec.cwd,
        home=spec.session_dir / "home",
        tmp=spec.session_dir / "tmp",
        writable=writable,
        readable=tuple(readable),
        hidden=tuple(hidden),
        sockets=(*sockets, *control),
        network="proxy",
    )


def open_box(
    spec: SessionSpec,
    environ: Mapping[str, str],
    executable: str,
    *,
    sockets: tuple[Path, ...] = (),
    on_blocked: Blocked | None = None,
) -> SessionBox:
    """The session's box, its proxy listening; `BoxUnavailable` when none can be built."""
    box = select_box(spec.sandbox.mode, environ.get("PATH"))
    if not box.confined:
        return SessionBox(box, None, None)
    cache_box_bytecode()
    (spec.session_dir / "tmp").mkdir(parents=True, exist_ok=True)
    proxy = NetworkProxy(session_allowlist(spec, environ), spec.session_dir / LOG_NAME, on_blocked)
    try:
        plan = session_plan(spec, environ, executable, (proxy.folder, *sockets))
    except BaseException:
        proxy.close()
        raise
    return SessionBox(box, plan, proxy)
