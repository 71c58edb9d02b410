"""`POST /graphql`: documents validated against GitHub's schema (shipped in `data/`),
answering the few fields Conveyor asks for.
"""
