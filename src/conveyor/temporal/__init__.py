"""Stage jobs on a pool of worker machines through Temporal: executor, worker, workflow."""
