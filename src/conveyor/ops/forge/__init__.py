"""The ops that touch the forge: reading and writing issues, comments, labels, claims,
the state comment and pull requests. The job's effects that combine them with the local
ops are the job's own (`job/effects/`).
"""
