"""Which files instruct the agents on a change: AGENTS.md, CLAUDE.md, Copilot, scoped, practices."""

from __future__ import annotations

from conveyor.core.instructions import (
    MAX_FILES,
    Instruction,
    apply_to,
    instructions_for,
    is_candidate,
)

PRACTICES = ("AGENTS.md", "docs/STYLE.md")
TS = "---\napplyTo: '**/*.ts,**/*.tsx'\n---\nUse strict TypeScript.\n"
EVERYWHERE = '---\napplyTo: "**"\ndescription: all\n---\nBe brief.\n'
MANUAL = "---\ndescription: only when asked\n---\nRelease steps.\n"
FILES = {
    "AGENTS.md": "Run the tests.",
    "CLAUDE.md": "Prefer small diffs.",
    "docs/STYLE.md": "House style.",
    ".github/copilot-instructions.md": "Copilot rules.",
    ".github/instructions/ts.instructions.md": TS,
    ".github/instructions/all.instructions.md": EVERYWHERE,
    ".github/instructions/release.instructions.md": MANUAL,
    "web/AGENTS.md": "Frontend rules.",
    "server/CLAUDE.md": "Backend rules.",
}
ALWAYS = {
    ".github/copilot-instructions.md",
    ".github/instructions/all.instructions.md",
    "AGENTS.md",
    "CLAUDE.md",
    "docs/STYLE.md",
}


def paths(found: tuple[Instruction, ...]) -> set[str]:
    """The paths chosen."""
    return {i.path for i in found}


def test_a_change_gets_the_repository_wide_files_and_the_scoped_ones_it_touches() -> None:
    """A TypeScript change under web/: the always-files, the ts rules and web/AGENTS.md."""
    found = instructions_for(FILES, ["web/app.ts", "README.md"], PRACTICES)
    assert paths(found) == ALWAYS | {"web/AGENTS.md", ".github/instructions/ts.instructions.md"}
    scopes = {i.path: i.scope for i in found}
    assert scopes["web/AGENTS.md"] == "files under `web/`"
    assert scopes["AGENTS.md"] is None


def test_a_change_elsewhere_gets_none_of_the_scoped_files() -> None:
    """A Python change in server/: server's CLAUDE.md, no TypeScript nor web rules."""
    found = instructions_for(FILES, ["server/api.py"], PRACTICES)
    assert paths(found) == ALWAYS | {"server/CLAUDE.md"}


def test_before_the_change_is_known_every_scoped_file_applies_with_its_scope() -> None:
    """A writer who has not written yet: every scoped file, each saying where it applies;
    a file with no `applyTo` is applied by hand only, so never."""
    found = instructions_for(FILES, None, PRACTICES)
    assert ".github/instructions/release.instructions.md" not in paths(found)
    assert paths(found) == set(FILES) - {".github/instructions/release.instructions.md"}
    assert [i.scope is None for i in found][: len(ALWAYS)] == [True] * len(ALWAYS)


def test_apply_to_reads_the_front_matter_only() -> None:
    """Globs are split on commas and unquoted; an `applyTo` in the body is not front matter."""
    assert apply_to(TS) == ("**/*.ts", "**/*.tsx")
    assert apply_to("no front matter\napplyTo: '**'\n") == ()
    assert apply_to(MANUAL) == ()


def test_the_candidates_read_from_the_base_are_only_instruction_files() -> None:
    """What the job reads of the base's tree: nothing but possible instruction files."""
    assert is_candidate("pkg/sub/AGENTS.md", PRACTICES)
    assert is_candidate("docs/STYLE.md", PRACTICES)
    assert is_candidate(".github/instructions/x.instructions.md", PRACTICES)
    assert not is_candidate("docs/agents.md", PRACTICES)
    assert not is_candidate(".github/instructions/x.md", PRACTICES)
    assert not is_candidate("src/main.py", PRACTICES)


def test_a_monorepo_s_many_files_are_capped_with_the_repository_wide_ones_kept() -> None:
    """A hundred package AGENTS.md files: the cap keeps the root's first."""
    many = {f"pkg{n:03d}/AGENTS.md": "x" for n in range(100)} | {"AGENTS.md": "root"}
    found = instructions_for(many, None, ())
    assert len(found) == MAX_FILES
    assert found[0] == Instruction("AGENTS.md")
