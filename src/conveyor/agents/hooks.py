"""The checkout's `commit-msg` hook: plain `git commit` in a session gets the trailer too."""

from __future__ import annotations

import shlex

from conveyor.core.signatures import trailer

TRAILER_KEY = "Pipeline-Agent"


def commit_msg_hook(role: str) -> str:
    """A POSIX shell `commit-msg` hook appending `Pipeline-Agent: <role name>` when missing.

    The job installs it (mode 0755) in the checkout's hooks folder; an existing trailer of
    any value is left alone, so the job's own commits keep theirs.
    """
    line = shlex.quote(trailer(role))
    return (
        "#!/bin/sh\n"
        "# Installed by Conveyor: every agent commit carries the Pipeline-Agent trailer.\n"
        f"if ! grep -qi '^{TRAILER_KEY}:' \"$1\"; then\n"
        f'  git interpret-trailers --in-place --trailer {line} "$1"\n'
        "fi\n"
    )
