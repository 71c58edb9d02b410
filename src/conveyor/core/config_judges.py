"""The config's `[judges]` section: what configures a check, and the suppressions allowed.

The defaults are `core.check_config`'s table (every ecosystem's entries, or those of
`ecosystems`) and the files the configured commands run; a project adds entries per
judge (`tests`, `lint`, `typecheck`, `ci`: `glob` or `glob#section`), drops defaults it
does not want counted (`ignore`, as the table writes them), and names the suppressions
it accepts in any change (`allow_suppressions`, each a marker as the checks comment
shows it, e.g. `"type: ignore[import-untyped]"` or `"noqa: PLR0913"`).
"""

from __future__ import annotations

from conveyor.core.config_terms import Strict


class Judges(Strict):
    """What judges a change, beyond the defaults."""

    ecosystems: tuple[str, ...] | None = None
    tests: tuple[str, ...] = ()
    lint: tuple[str, ...] = ()
    typecheck: tuple[str, ...] = ()
    ci: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    allow_suppressions: tuple[str, ...] = ()
