"""The scripted agent: a stand-in for `claude` that replays a scenario file."""
