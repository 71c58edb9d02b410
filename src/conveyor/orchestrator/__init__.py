"""The orchestrator: which issue's job starts, waits or is stopped. The rules (schedule,
watchdog, escalate, plan, gate…) are pure functions of a snapshot; the tick and `shell/`
carry out their decisions (snapshot cache, executor, status file, the run loop)."""
