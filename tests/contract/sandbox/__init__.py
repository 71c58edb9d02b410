"""Tests of the sandbox against real bubblewrap boxes, sockets and processes."""
