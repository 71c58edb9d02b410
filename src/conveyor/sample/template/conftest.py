"""Makes `inventory` importable from the repository root."""
