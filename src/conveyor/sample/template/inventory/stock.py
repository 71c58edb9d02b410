"""Items and their quantities."""

from __future__ import annotations


class StockError(ValueError):
    """An operation the stock cannot do."""


class Stock:
    """Quantities of named items."""

    def __init__(self) -> None:
        self._items: dict[str, int] = {}

    def add(self, name: str, quantity: int = 1) -> int:
        """Add `quantity` of `name`; returns the new quantity."""
        if quantity <= 0:
            raise StockError(f"quantity must be positive, got {quantity}")
        self._items[name] = self._items.get(name, 0) + quantity
        return self._items[name]

    def remove(self, name: str, quantity: int = 1) -> int:
        """Take `quantity` of `name` out; returns what is left."""
        have = self._items.get(name, 0)
        if quantity > have:
            raise StockError(f"only {have} of {name!r} in stock")
        self._items[name] = have - quantity
        return self._items[name]

    def quantity(self, name: str) -> int:
        """How many of `name` are in stock."""
        return self._items.get(name, 0)

    def names(self) -> list[str]:
        """Every item ever added, sorted."""
        return sorted(self._items)
