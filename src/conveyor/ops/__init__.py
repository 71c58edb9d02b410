"""Single operations against the forge, git and the job's files, for the job's effects
(`job/effects/`) and the orchestrator: sweep, claim, save the state, post, stop, ask, split,
merge. They import nothing of the job."""
