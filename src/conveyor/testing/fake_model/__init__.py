"""A loopback fake model that lets the real agent CLIs run offline (see `server.FakeModel`)."""

from __future__ import annotations

from conveyor.testing.fake_model.script import (
    Branch,
    Conversation,
    Script,
    Text,
    ToolCall,
    Turn,
    Usage,
    decide_turn,
)
from conveyor.testing.fake_model.server import FakeModel, Player, RecordedRequest
from conveyor.testing.fake_model.steps import (
    CallTool,
    Hangup,
    ReadFile,
    Refuse,
    Reject,
    RunCommand,
    SayText,
    Step,
    WriteFile,
)

__all__ = [
    "Branch",
    "CallTool",
    "Conversation",
    "FakeModel",
    "Hangup",
    "Player",
    "ReadFile",
    "RecordedRequest",
    "Refuse",
    "Reject",
    "RunCommand",
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
