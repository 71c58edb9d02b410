"""The job's effects, one module per group with its rows of the dispatch table
(`job/dispatch.py` gathers them), the parts of a job each op takes, and the session launch."""
