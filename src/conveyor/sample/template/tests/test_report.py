"""Tests of the reports."""

from inventory import Stock
from inventory.report import summary, total


def test_summary_lists_items_sorted() -> None:
    stock = Stock()
    stock.add("nut", 2)
    stock.add("bolt", 1)
    assert summary(stock) == "bolt: 1\nnut: 2"


def test_total_counts_units() -> None:
    stock = Stock()
    stock.add("nut", 2)
    stock.add("bolt", 1)
    assert total(stock) == 3
