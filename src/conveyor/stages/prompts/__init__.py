"""stages/prompts."""
