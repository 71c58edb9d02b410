"""The bridge a session starts behind: built-in modules only, the command's environment,
exit code and signals passed through."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from conveyor.sandbox.allowlist import Allowlist
from conveyor.sandbox.proxy import NetworkProxy, bridge_argv, bridge_file

MODULES = "import sys, json; print(json.dumps(sorted(sys.modules)))"


def _modules(code: str) -> set[str]:
    argv = [sys.executable, "-I", "-S", "-c", code]
    done = subprocess.run(argv, capture_output=True, text=True, check=True)
    return set(json.loads(done.stdout))


def test_the_bridge_imports_only_modules_built_into_the_interpreter() -> None:
    """Once a session: no socket, threading, signal or os layers (enum, selectors) to load."""
    folder = str(Path(bridge_file()).parent)
    bare = _modules(MODULES)
    bridged = _modules(f"import sys; sys.path[:0] = [{folder!r}]; import bridge; {MODULES}")
    extra = bridged - bare - {"json", "bridge", "__future__"}
    assert extra <= set(sys.builtin_module_names), sorted(extra - set(sys.builtin_module_names))


def test_the_command_runs_with_the_proxy_variables_and_its_exit_code() -> None:
    """As the runner starts it: HTTPS_PROXY names the bridge's port, loopback bypasses it."""
    code = "import os, sys; print(os.environ['HTTPS_PROXY'], os.environ['NO_PROXY']); sys.exit(5)"
    allow = Allowlist.of(["api.anthropic.com"])
    with NetworkProxy(allow) as proxy:
        argv = bridge_argv(proxy, [sys.executable, "-c", code])
        done = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
    assert done.returncode == 5, done.stderr
    url, no_proxy = done.stdout.split()
    assert url.startswith("http://127.0.0.1:")
    assert "127.0.0.1" in no_proxy.split(",")


WAITS_FOR_SIGTERM = (
    "import signal, sys, time\n"
    "signal.signal(signal.SIGTERM, lambda *_: sys.exit(3))\n"
    "print('ready', flush=True)\n"
    "time.sleep(60)\n"
)


def test_a_sigterm_to_the_bridge_reaches_the_command() -> None:
    """The command's own handler runs and its exit code is the bridge's."""
    with NetworkProxy(Allowlist.of([])) as proxy:
        argv = bridge_argv(proxy, [sys.executable, "-c", WAITS_FOR_SIGTERM])
        with subprocess.Popen(argv, stdout=subprocess.PIPE, text=True) as proc:
            assert proc.stdout is not None
            assert proc.stdout.readline().strip() == "ready"
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(timeout=30) == 3


def test_a_sigterm_the_kernel_hands_to_a_listener_thread_still_reaches_the_command() -> None:
    """A process's signal may land on any thread that does not block it; the bridge's
    listener threads block the forwarded ones, so the waiting thread takes it (a signal taken
    by a listener left the bridge waiting until the command ended on its own: a CI failure)."""
    with NetworkProxy(Allowlist.of([])) as proxy:
        argv = bridge_argv(proxy, [sys.executable, "-c", WAITS_FOR_SIGTERM])
        with subprocess.Popen(argv, stdout=subprocess.PIPE, text=True) as proc:
            assert proc.stdout is not None
            assert proc.stdout.readline().strip() == "ready"
            tasks = Path(f"/proc/{proc.pid}/task").iterdir()
            threads = [int(t.name) for t in tasks if int(t.name) != proc.pid]
            assert threads, "the bridge listens on threads of its own"
            os.kill(threads[0], signal.SIGTERM)  # Linux: the named thread is tried first
            try:
                assert proc.wait(timeout=20) == 3
            finally:
                proc.kill()
