"""The orchestrator's effects: the tick (`tick.py`) that carries out the pure rules' decisions,
the ledger, the snapshot cache, the job executor, status.json and the run loop."""
