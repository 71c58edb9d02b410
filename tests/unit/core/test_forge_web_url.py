"""Where people read a forge's pages, from the API address the config names."""

from __future__ import annotations

import pytest

from conveyor.core.config_forge import ForgeConfig


@pytest.mark.parametrize(
    ("forge", "pages"),
    [
        ({}, "https://github.com"),
        ({"api_url": "https://ghe.example.com/api/v3/"}, "https://ghe.example.com"),
        ({"kind": "local", "api_url": "http://127.0.0.1:8765"}, "http://127.0.0.1:8765"),
    ],
)
def test_the_web_address_is_github_s_or_the_embedded_forge_s_own(
    forge: dict[str, str], pages: str
) -> None:
    """GitHub's API is read on github.com, an Enterprise server's on its host, ours on itself."""
    assert ForgeConfig.model_validate(forge).web_url == pages
