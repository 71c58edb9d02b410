"""How item names are shown to people."""


def label(name: str) -> str:
    """The item's name as a person reads it."""
    return name
