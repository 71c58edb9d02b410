"""Conveyor: trusted issues to merged pull requests with AI coding agents."""
