"""One backend per agent CLI: its command line and the parser of its event stream."""
