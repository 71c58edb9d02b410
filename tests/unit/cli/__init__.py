"""Tests of the `conveyor` command line."""
