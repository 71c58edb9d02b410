"""The system folders every box shows read-only, and the secrets of `/etc` it covers.

A box starts from an empty root, not from the host's minus a list: a deny-list cannot
know every socket and secret a machine has. What a toolchain reads of the system is
the programs and libraries (`/usr`, `/bin`, `/sbin`, `/lib*`, `/opt`, Nix's store),
its configuration (`/etc`, covered where it holds secrets) and the kernel's view of
the machine (`/sys`, for the CPU count and cgroup limits Node, Rust and Go read).
`/run`, `/var`, `/home`, `/root`, `/mnt`, `/media` and `/srv` are not there, and with
them every host Unix socket (ssh-agent, D-Bus, systemd, docker, the Nix daemon).
On a merged-/usr system `/bin` and friends are symlinks into `/usr`: they are laid as
the same symlinks.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

SYSTEM = (
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/etc",
    "/opt",
    "/sys",
    "/nix/store",
    "/nix/var/nix/profiles",
)
# What of /etc holds a machine's secrets (most are root's alone; a box run as root, as in
# a container, would read them): covered, when they exist.
ETC_SECRETS = (
    "shadow",
    "shadow-",
    "gshadow",
    "gshadow-",
    "sudoers",
    "sudoers.d",
    "security/opasswd",
    "ssl/private",
    "pki/tls/private",
    "pki/CA/private",
    "NetworkManager/system-connections",
    "wpa_supplicant",
    "wireguard",
    "krb5.keytab",
    "ipsec.secrets",
    "ppp/chap-secrets",
    "ppp/pap-secrets",
    "credstore",
    "credstore.encrypted",
    "libvirt/secrets",
    "docker/key.json",
    "netplan",
)


@dataclass(frozen=True)
class SystemPath:
    """A system folder as the host has it: a real folder, or a symlink (`target` its text)."""

    path: Path
    target: str | None = None


def system_paths(root: Path = Path("/")) -> tuple[SystemPath, ...]:
    """The system folders this host has, each a folder to bind or a symlink to lay."""
    found = []
    for name in SYSTEM:
        path = root / name.lstrip("/")
        if path.is_symlink():
            found.append(SystemPath(Path(name), str(path.readlink())))
        elif path.is_dir():
            found.append(SystemPath(Path(name)))
    return tuple(found)


def etc_secrets(root: Path = Path("/")) -> tuple[Path, ...]:
    """The secrets of `/etc` this host has (and its ssh host keys), to cover."""
    etc = root / "etc"
    found = [Path("/etc") / name for name in ETC_SECRETS if (etc / name).exists()]
    ssh = etc / "ssh"
    if ssh.is_dir():
        found += [Path("/etc/ssh") / p.name for p in sorted(ssh.glob("ssh_host_*_key"))]
    return tuple(found)


def in_system(path: Path, system: tuple[SystemPath, ...]) -> bool:
    """Whether `path` (resolved) lies in a system folder the box shows (secrets aside)."""
    return any(s.target is None and path.is_relative_to(s.path) for s in system)
