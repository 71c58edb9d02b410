"""Contract tests of the embedded forge over loopback HTTP."""
