"""The emulator's git side: creating repositories and wikis, branches and pushes as the
server applies them, a PR's mergeability and its JSON, the checks a branch requires,
and memoised git reads.
"""
