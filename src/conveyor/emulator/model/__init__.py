"""The emulator's data: the SQLite store and its tables, the rows of issues, pull
requests, checks and reviews, the shared running state, GitHub's JSON shapes, and the
request helpers (auth, bodies, GitHub-shaped errors, paging) every part answers with.
"""
