"""The type-only rule for a changed interface's file outside Python, line by line (SPEC-88).

Conservative, read with each language's comments removed (`core.comments`): the change
removes no line and every line it adds is a declaration that runs nothing.

- **TypeScript** (git-only part; the commit check also compares the emitted JavaScript
  with the worktree's own TypeScript, `ops.local.ts_emit`): added lines inside an
  `interface` or an object type alias, `type` aliases and union members, `import type`
  and `export type`/`export interface`; lines of zod schemas (`const X = z.…`) and export
  lists may also change or go.
- **Go**: method lines added inside an `interface { … }` block, or a new interface type.
- **Rust**: required methods (`fn f(&self) -> T;`, no body) and associated types added
  inside a `trait { … }` block, or a new trait of only those.
- **C and C++**, in a header only: function prototypes (no body, not `virtual` nor
  `inline`), forward declarations, `typedef` and `using X = …;`.
- **Java and Kotlin**: abstract method signatures added inside an `interface { … }`
  (no `default` or `static` method, no body).

Anything else is refused, with the first offending line named.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable

from conveyor.core.comments import DIRECTIVES, Comments, strip_comments
from conveyor.core.typeonly import Verdict

_HEADERS = (".h", ".hh", ".hpp", ".hxx", ".ipp", ".inl")
_GO_BLOCK = re.compile(r"^type \w+(?:\[[^\]]*\])? interface\s*\{$")
_RUST_BLOCK = re.compile(r"^(?:pub(?:\([\w:]+\))? )?(?:unsafe )?trait \w+[^{]*\{$")
_JAVA_BLOCK = re.compile(
    r"^(?:(?:public|protected|private|sealed|non-sealed) )*(?:@)?interface \w+[^{]*\{$"
)
_TS_BLOCK = re.compile(
    r"^(?:export )?(?:declare )?(?:interface \w+[^{=]*\{|type \w+(?:<[^=]*>)? = \{)$"
)
_TS_LINE = re.compile(
    r"^(?:(?:export )?(?:declare )?type \w+|import type |export type |export interface |\||&|"
    r"(?:export )?(?:declare )?interface \w+)"
)
_SCHEMA = re.compile(r"^(?:export )?const \w+\s*=\s*z\.")
_EXPORT_LIST = re.compile(r"^export \{[^}]*\}(?: from .*)?;?$")
# A required method (one line, or a signature over several), an associated type or const.
_RUST_LINE = re.compile(
    r"^(?:(?:unsafe |async |const )*fn \w+[^{}]*;|type \w+[^{}=]*;|const \w+\s*:[^={}]*;)$|"
    r"^[^{}]*[,(]$|^[^{}]*\)[^{}]*;$"
)
_JAVA_LINE = re.compile(
    r"^(?:@\w+(?:\([^)]*\))?|(?:(?:public|abstract) )*[\w<>\[\], ?.]+ \w+\([^{}]*\)"
    r"(?: throws [\w., ]+)?;)$"
)
_ACCESS = re.compile(r"^(?:public|private|protected)\s*:$")
_C_STATEMENT = re.compile(
    r"^(?:template\s*<[^;{}]*>\s*)?(?:extern\s+(?:\"C\"\s+)?)?(?:static\s+)?"
    r"[\w:<>,\s*&\[\]]+\([^;{}]*\)"
    r"(?:\s*(?:const|noexcept|override|final|=\s*(?:delete|default)))*\s*;$|"
    r"^(?:struct|class|union|enum(?: class)?)\s+\w+\s*;$|"
    r"^typedef\s[^{}]*;$|^using\s+\w+\s*=[^{}]*;$"
)


def _lines(text: str, syntax: Comments) -> list[str]:
    return [line.strip() for line in strip_comments(text, syntax).splitlines() if line.strip()]


def _blocks(lines: list[str], opener: re.Pattern[str]) -> list[range]:
    """The line ranges (opener to closer) of the blocks `opener` starts, by brace depth."""
    found: list[range] = []
    for start, line in enumerate(lines):
        if not opener.match(line):
            continue
        depth = 0
        for end in range(start, len(lines)):
            depth += lines[end].count("{") - lines[end].count("}")
            if depth <= 0:
                found.append(range(start, end + 1))
                break
    return found


def _diff(old: list[str], new: list[str]) -> tuple[list[int], list[int]]:
    """The indexes of old's removed lines and of new's added lines."""
    removed: list[int] = []
    added: list[int] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
        if tag in ("delete", "replace"):
            removed += range(i1, i2)
        if tag in ("insert", "replace"):
            added += range(j1, j2)
    return removed, added


def _inside(index: int, blocks: list[range]) -> range | None:
    return next((b for b in blocks if index in b), None)


def _block_rule(opener: re.Pattern[str], member: re.Pattern[str], what: str) -> Callable[..., str]:
    """A rule: added lines are `member` lines inside an `opener` block, or a whole new block."""

    def rule(old: list[str], new: list[str], removed: list[int], added: list[int]) -> str:
        if removed:
            return f"it removes or changes `{old[removed[0]]}`"
        blocks = _blocks(new, opener)
        fresh = set(added)
        for index in added:
            block = _inside(index, blocks)
            new_block = block is not None and block[0] in fresh and block[-1] in fresh
            edge = block is not None and index in (block[0], block[-1])
            member_line = edge or member.match(new[index])
            if block is None or (edge and not new_block) or not member_line:
                return f"`{new[index]}` is not {what}"
        return ""

    return rule


def _c_rule(old: list[str], new: list[str], removed: list[int], added: list[int]) -> str:
    if removed:
        return f"it removes or changes `{old[removed[0]]}`"
    statement = ""
    for index in added:
        if _ACCESS.match(new[index]):
            continue
        statement = f"{statement} {new[index]}".strip()
        if statement.startswith("#") or "virtual " in statement or "inline " in statement:
            return f"`{statement}` is not a prototype"
        if statement.endswith((";", "}")):
            if not _C_STATEMENT.match(statement):
                return f"`{statement}` is not a prototype, a forward declaration or a type alias"
            statement = ""
    return f"`{statement}` is not a whole declaration" if statement else ""


def _ts_rule(old: list[str], new: list[str], removed: list[int], added: list[int]) -> str:
    loose = _blocks(old, _SCHEMA)
    for index in removed:
        if not (_inside(index, loose) or _EXPORT_LIST.match(old[index])):
            return f"it removes or changes `{old[index]}` (outside zod schemas and export lists)"
    types, schemas = _blocks(new, _TS_BLOCK), _blocks(new, _SCHEMA)
    for index in added:
        line = new[index]
        if _inside(index, types) or _inside(index, schemas) or _EXPORT_LIST.match(line):
            continue
        if not _TS_LINE.match(line):
            return f"`{line}` is not type-level (an interface or type member, `import type`)"
    return ""


_RULES: dict[str, Callable[[list[str], list[str], list[int], list[int]], str]] = {
    "go": _block_rule(_GO_BLOCK, re.compile(r"^[^{}]*$"), "a method in an interface"),
    "rust": _block_rule(_RUST_BLOCK, _RUST_LINE, "a required method or type in a trait"),
    "java": _block_rule(_JAVA_BLOCK, _JAVA_LINE, "an abstract method in an interface"),
    "c": _c_rule,
    "typescript": _ts_rule,
}
SUPPORTED = frozenset(_RULES)


def declarations_only(old: str, new: str, language: str, syntax: Comments, path: str) -> Verdict:
    """Whether `old` → `new` only adds declarations `language`'s rule accepts (SPEC-88)."""
    rule = _RULES.get(language)
    if rule is None:
        return Verdict(False, f"Conveyor reads no types in {language} files")
    if language == "c" and not path.endswith(_HEADERS):
        return Verdict(False, "in C and C++ only a header may change, with prototypes")
    if len(DIRECTIVES.findall(new)) > len(DIRECTIVES.findall(old)):
        return Verdict(False, "it adds a directive comment (a linter or checker told to look away)")
    old_lines, new_lines = _lines(old, syntax), _lines(new, syntax)
    removed, added = _diff(old_lines, new_lines)
    if path.endswith(".d.ts"):  # every declaration there is ambient: only removals count
        added = []
    why = rule(old_lines, new_lines, removed, added)
    return Verdict(ok=not why, reason=why)
