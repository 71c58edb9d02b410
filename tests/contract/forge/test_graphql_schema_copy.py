"""The GraphQL schema the hook validates against is GitHub's, as kept in `tests/data`."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest

pytestmark = pytest.mark.contract


def test_the_forge_s_graphql_schema_is_the_copy_in_tests_data() -> None:
    """The hook shares the forge's built schema, so both SDL files must be the same bytes."""
    ours = (Path(__file__).parents[2] / "data" / "github-schema.graphql").read_bytes()
    shipped = resources.files("conveyor.emulator.graphql").joinpath("data/github-schema.graphql")
    assert shipped.read_bytes() == ours
