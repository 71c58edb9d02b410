"""Run one session: prepare its folder and environment, start the CLI, watch it, read its reply."""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO

from conveyor.agents.backends.base import Backend, Launch, McpCommand, StreamState
from conveyor.agents.backends.claude import ClaudeBackend
from conveyor.agents.backends.codex import CodexBackend
from conveyor.agents.backends.opencode import OpencodeBackend
from conveyor.agents.environment import build_env, ensure_git_config, prepare_home, session_vars
from conveyor.agents.mcp_endpoint import McpEndpoint
from conveyor.agents.mcp_server import make_gate
from conveyor.agents.process import AgentProcess, SessionHandle
from conveyor.agents.reply_gate import ReplyGate
from conveyor.agents.result_file import Watch, build_result, save_result
from conveyor.core.agent_failure import InfraKind
from conveyor.core.session import (
    HANDOFF_STEER,
    LOOP_CALLS,
    FailureKind,
    SessionResult,
    SessionSpec,
    SessionStatus,
    WatchAction,
    watch,
)

INSTALL_HINTS = {
    "claude": "npm install -g @anthropic-ai/claude-code",
    "codex": "npm install -g @openai/codex",
    "opencode": "npm install -g opencode-ai",
}
TRANSCRIPT = "transcript.jsonl"
# A CLI that said nothing for this share of its time when the timeout came had hung.
SILENT_SHARE = 1 / 3
MCP_MODE_ENV = "CONVEYOR_MCP"
Progress = Callable[[SessionSpec, StreamState], None]
"""Told of a launch's stream state once the CLI has started and after each line of its stream
(the job keeps job.json current with it; it must be quick and must not raise)."""


def backend_for(name: str) -> Backend:
    """The backend of one CLI name."""
    backends: dict[str, Backend] = {
        "claude": ClaudeBackend(),
        "codex": CodexBackend(),
        "opencode": OpencodeBackend(),
    }
    return backends[name]


def find_executable(spec: SessionSpec, environ: Mapping[str, str]) -> str | None:
    """The spec's executable, else `CONVEYOR_<BACKEND>_EXECUTABLE`, else the name on PATH."""
    chosen = spec.executable or environ.get(f"CONVEYOR_{spec.backend.upper()}_EXECUTABLE")
    if chosen:
        return chosen if Path(chosen).is_file() else shutil.which(chosen, path=environ.get("PATH"))
    return shutil.which(spec.backend, path=environ.get("PATH"))


def mcp_command(
    spec: SessionSpec, conveyor_vars: Mapping[str, str], endpoint: Path | None = None
) -> McpCommand:
    """`conveyor mcp-relay` to the job's endpoint at `endpoint`; else `conveyor mcp` itself."""
    script = Path(sys.executable).parent / "conveyor"
    module = "conveyor.agents.mcp_server" if endpoint is None else "conveyor.agents.mcp_relay"
    name = "mcp" if endpoint is None else "mcp-relay"
    command, prefix = (str(script), [name]) if script.exists() else (sys.executable, ["-m", module])
    if endpoint is not None:
        args = [*prefix, "--socket", str(endpoint), "--session-dir", str(spec.session_dir)]
        return McpCommand(command, tuple(args), dict(conveyor_vars))
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
) -> SessionResult:
    """One launch of one CLI, no retries; the result is also saved as `result.json`."""
    spec.session_dir.mkdir(parents=True, exist_ok=True)
    for stale in ("reply.json", "reply-findings.json", "handoff.md"):
        (spec.session_dir / stale).unlink(missing_ok=True)
    model = spec.model
    executable = find_executable(spec, environ)
    if executable is None:
        error = (
            f"the {spec.backend} CLI was not found: install it ({INSTALL_HINTS[spec.backend]}) "
            f"or set CONVEYOR_{spec.backend.upper()}_EXECUTABLE"
        )
        result = _missing(spec, error)
        save_result(result)
        return result
    backend = backend_for(spec.backend)
    conveyor_vars = session_vars(spec, retry)
    home = spec.session_dir / "home"
    # A scripted session needs no model credential: copy none.
    owner = environ if spec.scenario is None else {}
    prepare_home(owner, spec.backend, home, spec.session_dir / "codex-home")
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
    try:
        launch = backend.launch(
            spec, model, executable, mcp_command(spec, conveyor_vars, socket_path)
        )
        return _launch(spec, backend, launch, env, handle=handle, progress=progress)
    finally:
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
) -> SessionResult:
    """Start the CLI, follow it to its end and read its result."""
    model = spec.model
    for path, text in launch.files.items():
        path.write_text(text)
    env |= launch.env
    parser = backend.parser()
    seen = Watch()
    transcript = spec.session_dir / TRANSCRIPT
    with transcript.open("w") as out, (spec.session_dir / "stderr.log").open("wb") as err:
        try:
            proc = AgentProcess(
                launch.argv, cwd=spec.cwd, env=env, stderr=err, handle=handle or SessionHandle()
            )
        except OSError as exc:
            result = _missing(spec, f"cannot start {launch.argv[0]}: {exc}")
            save_result(result)
            return result
        proc.send_task(launch.stdin_text, keep_open=launch.keep_stdin_open)

        def tell() -> None:
            if progress is not None:
                progress(spec, parser.state)

        tell()
        _follow(
            spec,
            backend=backend,
            proc=proc,
            feed=parser.feed,
            state=parser.state,
            out=out,
            seen=seen,
            tell=tell,
        )
        seen.exit_code = proc.finish()
    result = build_result(spec, model, parser.state, seen, transcript)
    save_result(result)
    return result


def _follow(
    spec: SessionSpec,
    *,
    backend: Backend,
    proc: AgentProcess,
    feed: Callable[[str], int | None],
    state: StreamState,
    out: IO[str],
    seen: Watch,
    tell: Callable[[], None],
) -> None:
    """Read events until the CLI ends, steering or stopping it on context and time."""
    last_line = time.monotonic()
    for event in proc.events(last_line + spec.timeout_seconds):
        if event is None:
            seen.timed_out = True
            seen.went_silent = time.monotonic() - last_line >= spec.timeout_seconds * SILENT_SHARE
            proc.kill_group()
            return
        if event.kind == "abort":
            seen.aborted = True
            proc.kill_group()
            return
        if event.kind == "steer":
            if backend.steerable:
                proc.write(backend.steer_line(event.text))
            continue
        if event.kind == "eof":
            return
        last_line = time.monotonic()
        out.write(event.text if event.text.endswith("\n") else event.text + "\n")
        out.flush()  # the transcript is readable live
        context = feed(event.text)
        tell()
        if state.same_calls >= LOOP_CALLS:
            seen.looped = f"the same tool call {state.same_calls} times in a row: {state.last_call}"
            proc.kill_group()
            return
        if state.ended and backend.steerable:
            proc.close_stdin()
        if context is None:
            continue
        action = watch(
            context, spec.context, spec.role, steered=seen.steered, steerable=backend.steerable
        )
        if action is WatchAction.STEER:
            seen.steered = proc.write(backend.steer_line(HANDOFF_STEER))
        elif action is WatchAction.STOP:
            seen.context_stopped = True
            proc.kill_group()
            return
