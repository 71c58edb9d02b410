"""Each session's prompt, one module per stage: a pure `render` from the stage's data (the issue,
spec, findings, diff) to the prompt text; `common.py` holds the parts they share."""
