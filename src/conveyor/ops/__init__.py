"""The effects the stage machines and the orchestrator ask for, carried out against the forge,
git and the job's files: sweep, claim, save the state, post, stop, ask, split, push, merge."""
