"""The code each demo issue's scripted sessions write into the sample repository."""

from __future__ import annotations

from dataclasses import dataclass

LABEL = '"""How item names are shown to people."""\n\n\ndef label(name: str) -> str:\n'
LABEL += '    """The item\'s name as a person reads it."""\n    return {expr}\n'


@dataclass(frozen=True)
class Change:
    """One issue's change: a module (stub, then done), its test, and what the spec says."""

    module: str
    stub: str
    done: str
    test_path: str
    test: str
    behaviour: str
    signature: str
    status: str = "new"


def _module(doc: str, head: str, body: str) -> str:
    return f'"""{doc}"""\n\nfrom inventory.stock import Stock\n\n\n{head}\n{body}'


def _new(module: str, doc: str, head: str, body: str, *, test: str, behaviour: str) -> Change:
    stub = _module(doc, head, '    """See the spec."""\n    raise NotImplementedError\n')
    name = module.removeprefix("inventory/").removesuffix(".py")
    return Change(
        module=module,
        stub=stub,
        done=_module(doc, head, body),
        test_path=f"tests/test_{name}.py",
        test=test,
        behaviour=behaviour,
        signature=head.removesuffix(":"),
    )


CLEAN = _new(
    "inventory/low_stock.py",
    "Items running low.",
    "def low_stock(stock: Stock, below: int) -> list[str]:",
    '    """Names of the items with fewer than `below` units, sorted."""\n'
    "    return [n for n in stock.names() if stock.quantity(n) < below]\n",
    test="from inventory import Stock\nfrom inventory.low_stock import low_stock\n\n\n"
    "def test_low_stock_lists_items_below_the_threshold() -> None:\n"
    "    stock = Stock()\n    stock.add('bolt', 1)\n    stock.add('nut', 9)\n"
    "    assert low_stock(stock, 5) == ['bolt']\n",
    behaviour="`low_stock(stock, below)` lists the items with fewer than `below` units.",
)
RESTOCK = _new(
    "inventory/restock.py",
    "Topping the stock up.",
    "def restock(stock: Stock, level: int = 10) -> None:",
    '    """Top every item up to `level` units."""\n'
    "    for name in stock.names():\n"
    "        if stock.quantity(name) < level:\n"
    "            stock.add(name, level - stock.quantity(name))\n",
    test="from inventory import Stock\nfrom inventory.restock import restock\n\n\n"
    "def test_restock_tops_every_item_up_to_ten() -> None:\n"
    "    stock = Stock()\n    stock.add('bolt', 3)\n    restock(stock)\n"
    "    assert stock.quantity('bolt') == 10\n",
    behaviour="`restock(stock)` tops every item up to 10 units.",
)
PRICES = _new(
    "inventory/prices.py",
    "Unit prices in cents.",
    "def price(name: str) -> int:",
    '    """The unit price of `name` (1 cent when unknown)."""\n'
    "    return {'bolt': 25, 'nut': 10}.get(name, 1)\n",
    test="from inventory.prices import price\n\n\n"
    "def test_price_knows_bolts_and_defaults_to_one() -> None:\n"
    "    assert (price('bolt'), price('washer')) == (25, 1)\n",
    behaviour="`price(name)` gives a unit price in cents.",
)
VALUE = _new(
    "inventory/value.py",
    "What the stock is worth.",
    "def value(stock: Stock) -> int:",
    '    """The stock\'s worth in cents at unit prices."""\n'
    "    from inventory.prices import price\n\n"
    "    return sum(price(n) * stock.quantity(n) for n in stock.names())\n",
    test="from inventory import Stock\nfrom inventory.value import value\n\n\n"
    "def test_value_sums_price_times_quantity() -> None:\n"
    "    stock = Stock()\n    stock.add('bolt', 2)\n    stock.add('nut', 3)\n"
    "    assert value(stock) == 80\n",
    behaviour="`value(stock)` sums price times quantity.",
)
REMOVE_OLD = "        have = self._items.get(name, 0)\n"
_GUARD = "        if quantity <= 0:\n            raise StockError({message})\n"
BUGFIX = Change(
    module="inventory/stock.py",
    stub="",
    done=_GUARD.format(message='"bad quantity"') + REMOVE_OLD,
    test_path="tests/test_remove_negative.py",
    test="import pytest\n\nfrom inventory import Stock, StockError\n\n\n"
    "def test_remove_refuses_a_negative_quantity() -> None:\n"
    "    stock = Stock()\n    stock.add('bolt', 2)\n"
    "    with pytest.raises(StockError):\n        stock.remove('bolt', -1)\n"
    "    assert stock.quantity('bolt') == 2\n",
    behaviour="`remove(name, quantity)` refuses a quantity below 1.",
    signature="def remove(self, name: str, quantity: int = 1) -> int",
    status="changed",
)
BUGFIX_FIXED = _GUARD.format(message='f"quantity must be positive, got {quantity}"') + REMOVE_OLD
SAME_A = LABEL.format(expr="name.capitalize()")
SAME_B = LABEL.format(expr='name.replace("_", " ")')
SAME_BOTH = LABEL.format(expr='name.replace("_", " ").capitalize()')
# Each same-file implementer edits label()'s return line in place (a sed script), as a model
# edits what it finds: begun after the other merged, its edit lands on that change and both
# hold (SAME_BOTH) whichever went first; begun together, the two edits conflict on the line
# and the resolver keeps both. A whole-file write would put back the line it was written for.
SAME_A_EDIT = r"s/^\(    return .*\)$/\1.capitalize()/"
SAME_B_EDIT = 's/return name/return name.replace("_", " ")/'
SAME_A_TEST = (
    "from inventory.labels import label\n\n\n"
    "def test_label_is_capitalised() -> None:\n    assert label('bolt') == 'Bolt'\n"
)
SAME_B_TEST = (
    "from inventory.labels import label\n\n\n"
    "def test_label_shows_underscores_as_spaces() -> None:\n"
    "    assert label('hex_bolt').lower() == 'hex bolt'\n"
)
