"""Plain-text reports over a stock."""

from __future__ import annotations

from inventory.stock import Stock


def summary(stock: Stock) -> str:
    """One line per item: `name: quantity`."""
    return "\n".join(f"{name}: {stock.quantity(name)}" for name in stock.names())


def total(stock: Stock) -> int:
    """The number of units in stock."""
    return sum(stock.quantity(name) for name in stock.names())
