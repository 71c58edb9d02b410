"""A job's forge view is a `Forge` by its own methods, not by attribute forwarding."""

from __future__ import annotations

import inspect

from conveyor.forge.delegate import ForgeDelegate
from conveyor.forge.job_view import JobForge
from conveyor.forge.protocol import Forge


def protocol_methods() -> dict[str, inspect.Signature]:
    """Every method the `Forge` protocol declares, with its signature."""
    return {
        name: inspect.signature(member)
        for name, member in vars(Forge).items()
        if inspect.isfunction(member) and not name.startswith("_")
    }


def test_every_forge_method_is_defined_on_the_job_forge_class() -> None:
    """Each protocol method is a real method of `JobForge` with the protocol's parameters."""
    methods = protocol_methods()
    assert len(methods) > 30
    for name, wanted in methods.items():
        defined = inspect.getattr_static(JobForge, name, None)
        assert inspect.isfunction(defined), name
        got = inspect.signature(defined)
        assert [(p.name, p.kind) for p in got.parameters.values()] == [
            (p.name, p.kind) for p in wanted.parameters.values()
        ], name


def test_the_job_forge_forwards_nothing_by_attribute_lookup() -> None:
    """Neither the view nor its delegate base answers unknown attributes from the inner forge."""
    for cls in (JobForge, ForgeDelegate):
        assert "__getattr__" not in vars(cls)
