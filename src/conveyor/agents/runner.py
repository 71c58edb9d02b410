"""Run one session: prepare its folder and environment, start the CLI, watch it, read its reply."""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path

from conveyor.agents import mcp_relay
from conveyor.agents.backends.base import Backend, Launch, McpCommand, StreamState
from conveyor.agents.backends.registry import backend_for
from conveyor.agents.boxed import SessionBox, open_box
from conveyor.agents.environment import build_env, ensure_git_config, prepare_home, session_vars
from conveyor.agents.follow import Following, Progress
from conveyor.agents.mcp_endpoint import McpEndpoint
from conveyor.agents.mcp_server import make_gate
from conveyor.agents.process import AgentProcess, SessionHandle
from conveyor.agents.reply_gate import ReplyGate
from conveyor.agents.result_file import Watch, build_result, save_result
from conveyor.core.agent_failure import InfraKind
from conveyor.core.backends import FACTS
from conveyor.core.session import (
    FailureKind,
    SessionResult,
    SessionSpec,
    SessionStatus,
)
from conveyor.sandbox import BoxUnavailable
from conveyor.sandbox.proxy import Blocked

TRANSCRIPT = "transcript.jsonl"

MCP_MODE_ENV = "CONVEYOR_MCP"
Resume = Callable[[str, str], Launch | None]
"""The launch that resumes the CLI's session (its id) with a message, where the CLI can."""


def find_executable(spec: SessionSpec, environ: Mapping[str, str]) -> str | None:
    """The spec's executable, else `CONVEYOR_<BACKEND>_EXECUTABLE`, else the name on PATH."""
    chosen = spec.executable or environ.get(f"CONVEYOR_{spec.backend.upper()}_EXECUTABLE")
    if chosen:
        return chosen if Path(chosen).is_file() else shutil.which(chosen, path=environ.get("PATH"))
    return shutil.which(spec.backend, path=environ.get("PATH"))


def relay_argv(endpoint: Path, session_dir: Path) -> list[str]:
    """The relay's command line: `conveyor mcp-relay`'s own file, run by this interpreter
    without site packages (`-I -S`). It needs only the standard library, and every session
    starts one: about 25 ms of CPU, where the `conveyor` script took 55."""
    relay = [sys.executable, "-I", "-S", mcp_relay.__file__, "--socket", str(endpoint)]
    return [*relay, "--session-dir", str(session_dir)]


def mcp_command(
    spec: SessionSpec, conveyor_vars: Mapping[str, str], endpoint: Path | None = None
) -> McpCommand:
    """The relay to the job's endpoint at `endpoint`; else `conveyor mcp` itself."""
    if endpoint is not None:
        command, *args = relay_argv(endpoint, spec.session_dir)
        return McpCommand(command, tuple(args), dict(conveyor_vars))
    script = Path(sys.executable).parent / "conveyor"
    command, prefix = (str(script), ["mcp"])
    if not script.exists():
        command, prefix = sys.executable, ["-m", "conveyor.agents.mcp_server"]
    args = [
        *prefix,
        "--session-dir",
        str(spec.session_dir),
        "--reply-model",
        spec.reply_model,
        "--role",
        spec.role.value,
        "--session-key",
        spec.session_key,
        "--checkout",
        str(spec.cwd),
        "--check-rounds",
        str(spec.reply_check_rounds),
    ]
    if spec.control_socket is not None:
        args += ["--control-socket", str(spec.control_socket)]
    return McpCommand(command, tuple(args), dict(conveyor_vars))


def _missing(spec: SessionSpec, error: str) -> SessionResult:
    """The result of a CLI that could not be started at all."""
    return SessionResult(
        SessionStatus.FAILED,
        spec.model,
        error=error,
        session_dir=spec.session_dir,
        failure=FailureKind.INFRASTRUCTURE,
        infra=InfraKind.CLI_MISSING,
    )


def start_endpoint(spec: SessionSpec, environ: Mapping[str, str]) -> McpEndpoint | None:
    """The session's MCP endpoint in this process, unless `CONVEYOR_MCP=process` asks for
    the former `conveyor mcp` process per server."""
    if environ.get(MCP_MODE_ENV, "").strip().lower() == "process":
        return None

    def gate() -> ReplyGate:
        return make_gate(
            session_dir=spec.session_dir,
            reply_model=spec.reply_model,
            role=spec.role.value,
            session_key=spec.session_key,
            control_socket=spec.control_socket,
            checkout=spec.cwd,
            check_rounds=spec.reply_check_rounds,
        )

    return McpEndpoint(gate)


def run_session(
    spec: SessionSpec,
    environ: Mapping[str, str],
    *,
    retry: int = 0,
    handle: SessionHandle | None = None,
    progress: Progress | None = None,
    on_blocked: Blocked | None = None,
) -> SessionResult:
    """One launch of one CLI, no retries; the result is also saved as `result.json`.

    It runs in the session's box (`agents/boxed.py`); `on_blocked` hears each connection
    the box's proxy refused."""
    spec.session_dir.mkdir(parents=True, exist_ok=True)
    for stale in ("reply.json", "reply-findings.json", "handoff.md"):
        (spec.session_dir / stale).unlink(missing_ok=True)
    model = spec.model
    executable = find_executable(spec, environ)
    if executable is None:
        error = (
            f"the {spec.backend} CLI was not found: install it ({FACTS[spec.backend].install}) "
            f"or set CONVEYOR_{spec.backend.upper()}_EXECUTABLE"
        )
        result = _missing(spec, error)
        save_result(result)
        return result
    backend = backend_for(spec.backend)
    conveyor_vars = session_vars(spec, retry)
    # A scripted session needs no model credential: copy none.
    owner = environ if spec.scenario is None else {}
    home = prepare_home(owner, spec.backend, spec.session_dir)
    env = build_env(
        environ,
        backend=spec.backend,
        home=home,
        git_config=ensure_git_config(spec),
        conveyor_vars=conveyor_vars,
        passthrough=spec.passthrough_env,
        token_env=spec.token_env,
    )
    endpoint = start_endpoint(spec, environ)
    socket_path = endpoint.socket_path if endpoint is not None else None
    boxed: SessionBox | None = None
    try:
        sockets = (socket_path.parent,) if socket_path is not None else ()
        try:
            boxed = open_box(spec, environ, executable, sockets=sockets, on_blocked=on_blocked)
        except BoxUnavailable as exc:
            result = _missing(spec, str(exc))
            save_result(result)
            return result
        spec = boxed.resolved(spec)
        mcp = mcp_command(spec, conveyor_vars, socket_path)
        launch = backend.launch(spec, model, executable, mcp)

        def resume(session_id: str, text: str) -> Launch | None:
            return backend.resume(spec, model, executable, mcp, session_id=session_id, text=text)

        return _launch(
            spec, backend, launch, env, handle=handle, progress=progress, resume=resume, box=boxed
        )
    finally:
        if boxed is not None:
            boxed.close()
        if endpoint is not None:
            endpoint.close()


def _launch(
    spec: SessionSpec,
    backend: Backend,
    launch: Launch,
    env: dict[str, str],
    *,
    handle: SessionHandle | None,
    progress: Progress | None,
    resume: Resume,
    box: SessionBox,
) -> SessionResult:
    """Start the CLI, follow it to its end (resuming it to steer, where it resumes) and
    read its result."""
    model = spec.model
    for path, text in launch.files.items():
        path.write_text(text)
    env |= launch.env
    parser = backend.parser()
    seen = Watch()
    transcript = spec.session_dir / TRANSCRIPT
    deadline = time.monotonic() + spec.timeout_seconds
    handle = handle or SessionHandle()
    current: Launch | None = launch
    with transcript.open("w") as out, (spec.session_dir / "stderr.log").open("wb") as err:
        while current is not None:
            try:
                argv = box.wrap(current.argv)
                proc = AgentProcess(argv, cwd=spec.cwd, env=env, stderr=err, handle=handle)
            except OSError as exc:
                result = _missing(spec, f"cannot start {current.argv[0]}: {exc}")
                save_result(result)
                return result
            proc.send_task(current.stdin_text, keep_open=current.keep_stdin_open)
            following = Following(spec, backend, proc, parser, out, seen, deadline, progress)
            steer = following.run()
            seen.exit_code = proc.finish()
            current = _resumed(spec, parser.state, steer, resume)
    result = build_result(spec, model, parser.state, seen, transcript)
    save_result(result)
    return result


def _resumed(
    spec: SessionSpec, state: StreamState, steer: str | None, resume: Resume
) -> Launch | None:
    """The launch that resumes the CLI's session with `steer`, unless nothing needs it."""
    if steer is None or state.session_id is None or (spec.session_dir / "reply.json").exists():
        return None
    launch = resume(state.session_id, steer)
    if launch is not None:
        state.ended, state.error = False, None  # the resumed process says how it ends
    return launch
