"""The sandbox end to end: a hostile session and a hostile committed test."""
