"""The stage job: one stage of one issue as its own process. It claims the issue, prepares
the checkout, runs the stage's machine (sessions, effects, the control socket the agents
reach git through), records job.json, events and the ledger, and always saves the issue."""
