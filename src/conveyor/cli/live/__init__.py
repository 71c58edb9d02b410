"""The live view: what the orchestrator does, read from its files and shown while it runs."""
