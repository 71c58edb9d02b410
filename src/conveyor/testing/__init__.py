"""What the tests (and the demo) stand on: an embedded forge per test session, a world of
config, folders and users around it, fault-injecting forge wrappers, the fake model server,
the fork server that runs `conveyor` commands fast; never imported by the running system."""
