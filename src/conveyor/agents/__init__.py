"""Agent sessions: the runner, one backend per CLI, the MCP tool server, the scripted agent."""
