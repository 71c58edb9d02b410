"""The edit history of an issue's body or a comment, read by its node id (GraphQL only).

REST has no editor field and no history; GraphQL's `userContentEdits` gives each version
with its editor, time and `diff` (the whole text that version left). The pipeline asks for
it only when a text it took must be found again after its local copy was lost (TRUST-12).
"""

from __future__ import annotations

from typing import Any

from conveyor.forge.errors import ForgeError, NotFound
from conveyor.forge.github.base import ClientBase
from conveyor.forge.github.thread import login_of, when
from conveyor.forge.types import TextVersion

TEXT_VERSIONS = """
query TextVersions($id: ID!) {
  node(id: $id) {
    __typename
    ... on Comment {
      userContentEdits(first: 100) {
        nodes { editedAt deletedAt diff editor { __typename login } }
      }
    }
  }
}
"""


def to_version(node: dict[str, Any]) -> TextVersion:
    """A `UserContentEdit` node; a version deleted from the history has no text."""
    deleted = node.get("deletedAt") is not None or node.get("diff") is None
    return TextVersion(
        editor=login_of(node.get("editor")),
        edited_at=when(node["editedAt"]),
        text=None if deleted else str(node["diff"]),
    )


class EditOps(ClientBase):
    """The edit history of an issue's body or a comment."""

    def text_versions(self, node_id: str) -> tuple[TextVersion, ...]:
        """Up to the 100 newest versions, newest first; empty when never edited."""
        data = self._run(
            "read edit history",
            None,
            lambda: self._kit.graphql.request(TEXT_VERSIONS, {"id": node_id}),
        )
        node = data.get("node") if isinstance(data, dict) else None
        if node is None:
            raise NotFound("read edit history", None, f"no node {node_id}")
        edits = node.get("userContentEdits") if isinstance(node, dict) else None
        if not isinstance(edits, dict):
            raise ForgeError("read edit history", None, f"the forge answered {data!r}")
        return tuple(to_version(n) for n in edits.get("nodes") or () if isinstance(n, dict))
