"""The ops that never touch the forge: git on the job's checkout and the wiki's, the
pushes through the token helper, verify, and the spec writer's commit check. A
contract keeps the forge out of them.
"""
