"""A review of a person's PR as a job: claim, checkout, sessions, one posted review."""
