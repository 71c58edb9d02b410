"""Tests of the sandbox's pure parts."""
