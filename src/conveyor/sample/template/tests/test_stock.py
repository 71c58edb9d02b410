"""Tests of the stock."""

import pytest

from inventory import Stock, StockError


def test_add_and_remove() -> None:
    stock = Stock()
    assert stock.add("bolt", 3) == 3
    assert stock.remove("bolt", 2) == 1
    assert stock.quantity("bolt") == 1


def test_cannot_remove_more_than_in_stock() -> None:
    stock = Stock()
    stock.add("nut")
    with pytest.raises(StockError):
        stock.remove("nut", 2)


def test_quantity_must_be_positive() -> None:
    with pytest.raises(StockError):
        Stock().add("washer", 0)
