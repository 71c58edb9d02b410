"""The `conveyor` command: each sub-command parses its options, loads the config once
(`config_load.load_or_exit`) and hands the work to the layers below; also what a person reads
(status, cost, doctor, transcripts, the live view in `live/`) and the demo (`demo/`)."""
