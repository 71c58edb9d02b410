"""The host checks the doctor names: each switch that forbids user namespaces, with its fix."""

from __future__ import annotations

from pathlib import Path

from conveyor.sandbox.host import userns_problems


def _sysctl(root: Path, values: dict[str, str]) -> Path:
    for name, value in values.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(f"{value}\n")
    return root


def test_a_host_that_allows_user_namespaces_has_no_problem(tmp_path: Path) -> None:
    """Debian's switch on, a limit above 0, no AppArmor restriction: nothing to fix."""
    root = _sysctl(
        tmp_path,
        {
            "kernel/unprivileged_userns_clone": "1",
            "user/max_user_namespaces": "63000",
            "kernel/apparmor_restrict_unprivileged_userns": "0",
        },
    )
    assert userns_problems(root) == []


def test_missing_switches_are_no_problem(tmp_path: Path) -> None:
    """A kernel without Debian's or Ubuntu's switches does not restrict through them."""
    assert userns_problems(tmp_path) == []


def test_each_forbidding_switch_is_named_with_its_fix(tmp_path: Path) -> None:
    """All three switches set against user namespaces: three lines, each with a sysctl."""
    root = _sysctl(
        tmp_path,
        {
            "kernel/unprivileged_userns_clone": "0",
            "user/max_user_namespaces": "0",
            "kernel/apparmor_restrict_unprivileged_userns": "1",
        },
    )
    found = userns_problems(root)
    assert len(found) == 3
    assert "kernel.unprivileged_userns_clone" in found[0]
    assert "user.max_user_namespaces" in found[1]
    assert "AppArmor" in found[2]
    assert all("sysctl -w" in line for line in found)
