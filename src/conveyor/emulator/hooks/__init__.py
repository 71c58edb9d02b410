"""What leaves the emulator on its own: webhook registration and deliveries (events,
pushes, reviews), and the forge's CI, which runs a repository's command and reports
it as a check run.
"""
