"""A process-wide guard against network access beyond the loopback interface (for tests).

:func:`install_network_guard` adds a :func:`sys.addaudithook` hook that refuses

* ``socket.connect`` / ``socket.connect_ex`` / ``socket.sendto`` / ``socket.sendmsg`` to an
  IP address that is not loopback (``127.0.0.0/8``, ``::1``) or unspecified (``0.0.0.0``),
* ``socket.getaddrinfo`` / ``socket.gethostbyname`` for a host name other than
  ``localhost`` (a DNS lookup is itself network traffic),

by raising :class:`NetworkBlocked` *before* the system call, and records every refusal.
Unix-domain sockets and loopback connections (local model servers, the sandbox) are allowed.
Libraries may catch the exception; :func:`take_violations` still reports the attempt, so a
test fixture can fail the test that made it.

Audit hooks cannot be removed; :func:`set_enabled` switches the guard off and on (tests of
the guard itself use it).
"""

from __future__ import annotations

import ipaddress
import sys
import threading
from dataclasses import dataclass
from typing import Any

_LOCAL_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"})
_CONNECT_EVENTS = frozenset(
    {"socket.connect", "socket.connect_ex", "socket.sendto", "socket.sendmsg"}
)
_LOOKUP_EVENTS = frozenset({"socket.getaddrinfo", "socket.gethostbyname", "socket.gethostbyname_ex"})

_lock = threading.Lock()
_installed = False
_enabled = True
_violations: list[Violation] = []


class NetworkBlocked(RuntimeError):
    """Raised when code tries to reach a non-loopback address while the guard is on."""


@dataclass(frozen=True)
class Violation:
    """One refused network access.

    Attributes:
        event: Audit event name (``socket.connect``, ``socket.getaddrinfo``, ...).
        target: The address or host name.
    """

    event: str
    target: str


def is_local_host(host: Any) -> bool:
    """True for loopback / unspecified IP addresses and local host names."""
    if host is None:
        return True
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    text = str(host).strip().strip("[]").lower()
    if text in ("", *_LOCAL_NAMES):
        return True
    text = text.split("%", 1)[0]  # IPv6 zone index
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return text.endswith(".localhost")
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_loopback or address.is_unspecified


def _target(event: str, args: tuple[Any, ...]) -> Any:
    """The host an audit event is about, or None when it is not an IP-network event."""
    if event in _LOOKUP_EVENTS:
        return args[0] if args else None
    address = args[1] if len(args) > 1 else None
    if event == "socket.sendmsg":
        address = args[-1] if args else None
    if isinstance(address, tuple) and address:
        return address[0]
    return None  # Unix-domain path or unknown form: local


def _hook(event: str, args: tuple[Any, ...]) -> None:
    if not _enabled or (event not in _CONNECT_EVENTS and event not in _LOOKUP_EVENTS):
        return
    host = _target(event, args)
    if is_local_host(host):
        return
    violation = Violation(event=event, target=str(host))
    with _lock:
        _violations.append(violation)
    raise NetworkBlocked(
        f"network access blocked: {event} to {host!r} (only loopback addresses are allowed "
        "while the collabsim network guard is on)"
    )


def install_network_guard() -> None:
    """Install the guard once per process (later calls only re-enable it)."""
    global _installed, _enabled
    with _lock:
        _enabled = True
        if not _installed:
            sys.addaudithook(_hook)
            _installed = True


def set_enabled(enabled: bool) -> None:
    """Switch an installed guard on or off."""
    global _enabled
    _enabled = enabled


def is_installed() -> bool:
    """True once :func:`install_network_guard` has run in this process."""
    return _installed


def take_violations() -> list[Violation]:
    """Return and clear the refusals recorded since the last call."""
    with _lock:
        found = list(_violations)
        _violations.clear()
    return found
