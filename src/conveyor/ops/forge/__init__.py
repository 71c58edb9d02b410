"""The ops that touch the forge: reading and writing issues, comments, labels, claims,
the state comment and pull requests, and the stage effects that combine them with the
local ops.
"""
