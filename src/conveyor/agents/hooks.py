"""The checkout's `commit-msg` hook: plain `git commit` in a session gets the trailer too."""

from __future__ import annotations

import shlex

from conveyor.core.signatures import SKIP_CHECKS, SKIP_CHECKS_ROLES, trailer

TRAILER_KEY = "Pipeline-Agent"


def commit_msg_hook(role: str) -> str:
    """A POSIX shell `commit-msg` hook appending `Pipeline-Agent: <role name>` when missing.

    The job installs it (mode 0755) in the checkout's hooks folder; an existing trailer of
    any value is left alone, so the job's own commits keep theirs. The spec writer's
    commits also get `skip-checks: true`: their tests fail by design, CI skips them.
    """
    line = shlex.quote(trailer(role))
    skip = ""
    if role in SKIP_CHECKS_ROLES:
        skip = (
            "if ! grep -qi '^skip-checks:' \"$1\"; then\n"
            f'  git interpret-trailers --in-place --trailer {shlex.quote(SKIP_CHECKS)} "$1"\n'
            "fi\n"
        )
    return (
        "#!/bin/sh\n"
        "# Installed by Conveyor: every agent commit carries the Pipeline-Agent trailer.\n"
        f"if ! grep -qi '^{TRAILER_KEY}:' \"$1\"; then\n"
        f'  git interpret-trailers --in-place --trailer {line} "$1"\n'
        "fi\n"
        f"{skip}"
    )
