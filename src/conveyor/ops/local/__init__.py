"""The ops that never touch the forge: git on the job's checkout and the wiki's, verify,
and the spec writer's commit check. A contract keeps the forge out of them; the job's
push and commit ops are the job's own (`job/effects/push.py`).
"""
