"""What in a change reaches the checks that judge it: the files they (and the agents
reviewing it) read, and lines that silence them. A PR that edits them changes the rules
its own review and CI measure it by, so a review says so (a `conftest.py`, a config key,
a `CLAUDE.md`, a `# noqa`).

Pure, and on the judges' own tables (`core.check_config`: what configures the tests,
linters, type checkers and CI of each ecosystem, and the files the configured commands
run; `core.suppression_markers`: each ecosystem's silencing marks), plus what agent CLIs
read by themselves, the config's practices files and lockfiles. A file counts whole here:
a review names it whatever part of it changed.
"""

from __future__ import annotations

from collections.abc import Iterable

from conveyor.core.check_config import Judge, judge_entries
from conveyor.core.config import Config
from conveyor.core.diff_lines import FileDiff, added_lines
from conveyor.core.paths import matches_any, normalise
from conveyor.core.review_judge import Spotted
from conveyor.core.review_replies import AngleFinding
from conveyor.core.suppression_markers import MARKERS, Marker, ecosystem_of

ANGLE = "checks"
# What agent CLIs read by themselves, the review's own sessions included.
AGENT_FILES = (
    "**/CLAUDE.md", "**/AGENTS.md", "**/GEMINI.md", "**/.cursorrules", "**/opencode.json",
    ".claude/**", ".codex/**", ".opencode/**", ".github/copilot-instructions.md",
)  # fmt: skip
SILENCES = {
    "lint": "the linter",
    "types": "the type checker",
    "coverage": "the coverage gate",
    "skip": "a test",
    "focus": "every other test",
}


def check_globs(config: Config) -> tuple[str, ...]:
    """Every glob of a file the checks or the agents read, for this repository's config."""
    commands = config.commands
    named: dict[Judge, str | None] = {
        Judge.TESTS: " ; ".join(c for c in (commands.test, commands.test_files) if c),
        Judge.LINT: commands.lint,
        Judge.TYPECHECK: commands.typecheck,
    }
    judged = (e.glob for e in judge_entries(config.judges, named))
    extra = (*AGENT_FILES, *config.paths.practices, *config.paths.lockfiles)
    return tuple(dict.fromkeys((*judged, *extra)))


def check_files(changed: Iterable[str], config: Config) -> tuple[str, ...]:
    """The changed paths the checks (or the agents reviewing the change) read."""
    globs = check_globs(config)
    return tuple(sorted({normalise(p) for p in changed if matches_any(normalise(p), globs)}))


def _silenced(path: str, number: int, text: str, marker: Marker, token: str) -> Spotted:
    """The finding one added, silencing line is."""
    shown = marker.name if token in marker.name else f"{marker.name} {token}".strip()
    finding = AngleFinding(
        severity="minor",
        file=path,
        line=number,
        end_line=None,
        claim=f"adds `{shown}`, which silences {SILENCES.get(marker.kind, 'a check')}",
        evidence=f"added line: {text.strip()[:200]}",
        suggestion="fix what the check reports, or say in the code why it is wrong here",
    )
    return Spotted(ANGLE, finding)


def silencers(files: Iterable[FileDiff]) -> tuple[Spotted, ...]:
    """A finding for each added line that silences a check (once per file and marker)."""
    found: list[Spotted] = []
    for entry in files:
        markers = MARKERS.get(ecosystem_of(entry.path) or "", ())
        seen: set[str] = set()
        for number, text in added_lines(entry):
            for marker in markers:
                match = marker.pattern.search(text)
                if match is not None and marker.name not in seen:
                    seen.add(marker.name)
                    token = (match.groupdict().get("token") or "").strip()
                    found.append(_silenced(entry.path, number, text, marker, token))
    return tuple(found)
