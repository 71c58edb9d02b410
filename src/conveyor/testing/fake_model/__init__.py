"""A loopback fake model that lets the real agent CLIs run offline (see `server.FakeModel`)."""

from __future__ import annotations

from conveyor.testing.fake_model.script import (
    CallTool,
    Conversation,
    SayText,
    Script,
    Step,
    Text,
    ToolCall,
    Turn,
    Usage,
    WriteFile,
    decide_turn,
)
from conveyor.testing.fake_model.server import FakeModel, RecordedRequest

__all__ = [
    "CallTool",
    "Conversation",
    "FakeModel",
    "RecordedRequest",
    "SayText",
    "Script",
    "Step",
    "Text",
    "ToolCall",
    "Turn",
    "Usage",
    "WriteFile",
    "decide_turn",
]
