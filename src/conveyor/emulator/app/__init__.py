"""The emulator as a server: the Starlette app that mounts every part's routes, its
middleware (tokens, faults, 304s, rate limits), the `/_conveyor/` control endpoints,
and `ForgeServer`, the emulator on loopback in a thread for tests, bench and the demo.
"""
