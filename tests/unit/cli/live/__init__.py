"""Tests of the live view: model, rendering, line mode and `conveyor live`."""
