"""Issue 45: an implementer that games the judges instead of implementing, end to end."""
