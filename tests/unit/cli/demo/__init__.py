"""Tests of the demo's pieces: scenario file, config, actor, closing table."""
