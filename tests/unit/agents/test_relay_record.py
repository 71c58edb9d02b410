"""The relay's record of its variables' names is the JSON `json.dumps` would write."""

from __future__ import annotations

import json

from conveyor.agents.mcp_relay import json_names


def test_names_with_quotes_backslashes_controls_and_non_ascii_read_back_as_written() -> None:
    """Whatever a variable is called, the record parses to exactly the names."""
    names = ["PATH", 'A"B', "C\\D", "E\tF\x01\n\r\b\f", "Ü", "😀", "", "\x7f"]
    assert json.loads(json_names(names)) == names
    assert json_names(names) == json.dumps(names)
