"""Signatures: comments name role, agent, model and run; commits end with a trailer."""

from __future__ import annotations

import pytest

from conveyor.core.signatures import CommentMarker, Signature, parse_marker, trailer


def test_a_signed_comment_opens_with_the_signature_and_carries_the_marker() -> None:
    """The first line names role, agent, model and run; the marker names the role (GH-11, 12)."""
    body = Signature("spec", "claude", "sonnet", "job-7").sign("spec", "## Spec\nText")
    first = body.splitlines()[0]
    for part in ("spec writer", "claude", "sonnet", "job-7"):
        assert part in first
    assert parse_marker(body) == CommentMarker("spec", "spec", "job-7")


def test_values_that_would_break_the_marker_are_refused() -> None:
    """A run id with spaces or markup is an error naming the field."""
    with pytest.raises(ValueError, match="run_id"):
        Signature("spec", "claude", "sonnet", "a b -->")
    with pytest.raises(ValueError, match="run_id"):
        Signature("spec", "claude", "sonnet", "job-7\n")  # `$` alone would let this pass


def test_the_commit_trailer_names_the_role_as_people_read_it() -> None:
    """The spec writer's commits end with `Pipeline-Agent: spec writer` (GH-17)."""
    assert trailer("spec") == "Pipeline-Agent: spec writer"
