"""The emulator's REST routes as GitHub answers them: issues, comments, labels,
sub-issues, accounts and apps, pull requests, reviews, merging, branches, checks,
statuses, protection and rulesets.
"""
