"""End-to-end test of `conveyor demo`."""
