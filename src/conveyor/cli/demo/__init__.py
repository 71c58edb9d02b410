"""The pieces of `conveyor demo`: its issues, scenario, config, actor and closing table."""
