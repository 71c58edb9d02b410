"""The pure core every part shares: the config model, an issue's state and its hidden-comment
encoding, trust, labels and stop controls, signatures, budgets and the agents' reply models.
It reads no clock, file, environment or network: everything comes in as arguments."""
