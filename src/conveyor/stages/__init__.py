"""The stages an issue goes through (triage, spec, implement, review, fix, checks, sync,
accept, security, merge…): one pure state machine each, the same shape, looked up in
`registry.py`; the job runs them. Prompt templates are in `prompts/`."""
