"""Tests of the labels."""

from inventory.labels import label


def test_label_keeps_a_plain_name() -> None:
    assert label("bolt").lower() == "bolt"
