"""How the pipeline talks to a forge: the `Forge` protocol (the one seam), its typed values
and errors, and the GitHub client behind it (githubkit, for api.github.com or the embedded
forge), with retries, credentials, webhooks' checks and the job's view of answers."""
