"""A tiny stock-keeping library."""

from inventory.stock import Stock, StockError

__all__ = ["Stock", "StockError"]
