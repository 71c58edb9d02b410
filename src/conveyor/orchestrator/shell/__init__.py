"""The orchestrator's effects: the ledger, the snapshot cache, the job executor, status.json."""
