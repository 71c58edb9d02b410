"""forge/emulator."""
