"""forge/github."""
