"""Which network addresses a model endpoint chosen by someone else may reach.

A shared server (``neocoder serve``) calls model endpoints its callers name
(``base_url``).  Without a policy a caller could make the server connect to itself, to
other services on its loopback, to cloud metadata (169.254.169.254) or to any host of
its private network.  An ``EndpointPolicy`` says what is reachable:

- a public (globally routable unicast) address, always;
- an address inside a network the operator listed (``--allow-endpoint 10.0.0.0/8``,
  ``--allow-endpoint 127.0.0.1``);
- never any other address: loopback, link-local, private, shared, unspecified,
  multicast, reserved, and the IPv6 forms that carry one of them (IPv4-mapped
  ``::ffff:127.0.0.1``, 6to4, NAT64).

A host given as a name is accepted in a URL when the operator listed the name, or when
it resolves now to reachable addresses only; ``localhost`` and ``*.localhost`` are
loopback by definition (RFC 6761) unless listed.  Host spellings a resolver reads as
IPv4 (``2130706433``, ``0x7f.1``, ``017700000001``, ``127.1``) are read the same way
here (the WHATWG URL rules), so they are judged as the address they are.

The URL check (``check_url``) runs when a job is submitted; the connection check runs
again when the job connects (``http_client``): the name is resolved, every address it
resolves to must be reachable, and the connection goes to the checked address, so a name
that resolves elsewhere the second time (DNS rebinding) reaches nothing it may not.  A
listed *name* passes the URL check without resolving, but its addresses are still
checked when connecting: list an internal endpoint's address or network too.

``install(policy)`` is the process-wide switch a server sets at start; the model layer
asks ``current()`` and, when a policy is installed, builds its HTTP client with
``http_client``.  This module imports nothing of neocoder but its errors.
"""

from __future__ import annotations

import ipaddress
import logging
import socket
import threading
from dataclasses import dataclass, field
from urllib.parse import unquote

from neocoder.errors import NeocoderError

log = logging.getLogger("neocoder.netpolicy")

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network

_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_SHARED = ipaddress.ip_network("100.64.0.0/10")  # carrier-grade NAT (RFC 6598)


class EndpointRefused(NeocoderError):
    """An endpoint the policy refuses: ``field`` names the request field that gave it
    (e.g. ``base_url``), ``reason`` says why (the message is ``reason``)."""

    def __init__(self, field: str, reason: str):
        super().__init__(reason)
        self.field, self.reason = field, reason


def numeric_ipv4(host: str) -> ipaddress.IPv4Address | None:
    """The IPv4 address a URL host written as numbers means (the WHATWG URL standard's
    IPv4 parser, which resolvers follow too): 1 to 4 dot-separated parts, each decimal,
    ``0x`` hex or ``0``-prefixed octal, the last filling the remaining bytes
    (``127.1``, ``0x7f.1``, ``2130706433``, ``017700000001``).  None when ``host`` is
    not written that way (a name); EndpointRefused("host", ...) for numbers out of range."""
    parts = host.split(".")
    if len(parts) > 1 and parts[-1] == "":
        parts.pop()  # one trailing dot is allowed
    if not 1 <= len(parts) <= 4:
        return None
    numbers = []
    for part in parts:
        if not part:
            return None
        text, base = part, 10
        if text[:2].lower() == "0x":
            text, base = text[2:], 16
        elif len(text) > 1 and text.startswith("0"):
            text, base = text[1:], 8
        try:
            numbers.append(int(text, base) if text else 0)
        except ValueError:
            return None
        if text and not (text.isascii() and text.isalnum()):
            return None  # int() accepts "+1", "1_0", " 1"
    last = numbers.pop()
    if any(n > 255 for n in numbers) or last >= 256 ** (4 - len(numbers)):
        raise EndpointRefused("host", f"{host!r} is not a valid IPv4 address")
    value = last
    for i, n in enumerate(numbers):
        value += n << (8 * (3 - i))
    return ipaddress.IPv4Address(value)


def literal_address(host: str) -> Address | None:
    """The address ``host`` writes literally (IPv6 with or without brackets and zone,
    dotted or numeric IPv4), or None for a name."""
    host = unquote(host).strip("[]").split("%")[0]
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return numeric_ipv4(host)


def refusal(address: Address) -> str | None:
    """Why ``address`` is not public (``"loopback"``, ``"private"``, ...), or None for a
    globally routable unicast address.  IPv6 forms carrying an IPv4 address are judged
    by that address."""
    if isinstance(address, ipaddress.IPv6Address):
        inner = address.ipv4_mapped or address.sixtofour
        if inner is None and address in _NAT64:
            inner = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
        if inner is not None:
            why = refusal(inner)
            return f"{why} as {inner}" if why else None
    for kind in ("unspecified", "loopback", "link_local", "multicast", "private", "reserved", "site_local"):
        if getattr(address, f"is_{kind}", False):
            return kind.replace("_", "-")
    if address in _SHARED or not address.is_global:
        return "not globally routable"
    return None


def parse_allowed(entries) -> tuple[frozenset[str], tuple[Network, ...]]:
    """``--allow-endpoint`` values as ``(names, networks)``: an IP address or a CIDR
    network (``10.0.0.0/8``, ``fd00::/8``) is a network, anything else a host name
    (lower case, without a trailing dot).  Raises NeocoderError for an entry that is
    neither (a network with host bits set, a name with a scheme, port or path)."""
    names, networks = set(), []
    for entry in entries:
        text = str(entry).strip()
        try:
            networks.append(ipaddress.ip_network(text.strip("[]"), strict=True))
            continue
        except ValueError as exc:
            if "/" in text and not any(c in text for c in ":?#@") and text.count("/") == 1:
                raise NeocoderError(f"--allow-endpoint {text!r}: {exc}") from exc
        name = text.lower().rstrip(".")
        if not name or not all(part and all(c.isalnum() or c == "-" for c in part) for part in name.split(".")):
            raise NeocoderError(f"--allow-endpoint {text!r}: give a host name, an IP address or a CIDR network "
                                "(no scheme, port or path)")
        names.add(name)
    return frozenset(names), tuple(networks)


@dataclass(frozen=True)
class EndpointPolicy:
    """What a model endpoint may reach: public addresses, and the ``networks`` and host
    ``names`` the operator listed (``parse_allowed``).  ``resolve`` is the name resolver
    (``socket.getaddrinfo``'s signature), replaceable for tests."""

    names: frozenset = frozenset()
    networks: tuple = ()
    resolve: object = field(default=socket.getaddrinfo, compare=False, repr=False)

    @classmethod
    def from_entries(cls, entries) -> "EndpointPolicy":
        """The policy of ``--allow-endpoint`` values (see ``parse_allowed``)."""
        names, networks = parse_allowed(entries)
        return cls(names, networks)

    def address_refusal(self, address: Address) -> str | None:
        """Why a connection to ``address`` is refused, or None when it may be made."""
        if any(address.version == n.version and address in n for n in self.networks):
            return None
        mapped = getattr(address, "ipv4_mapped", None)
        if mapped is not None and any(mapped in n for n in self.networks if n.version == 4):
            return None
        why = refusal(address)
        return f"{address}, not a public address ({why})" if why else None

    def addresses(self, host: str, port: int, field: str = "base_url") -> list[tuple]:
        """The ``(family, sockaddr)`` a connection to ``host:port`` may use: its literal
        address, or every address the name resolves to now.  Raises EndpointRefused
        (naming ``field``) when one of them is refused, or when the name does not resolve."""
        literal = literal_address(host)
        if literal is not None:
            found = [(socket.AF_INET6 if literal.version == 6 else socket.AF_INET, (str(literal), port))]
        else:
            try:
                infos = self.resolve(unquote(host).rstrip("."), port, type=socket.SOCK_STREAM)
            except (OSError, UnicodeError) as exc:
                raise EndpointRefused(field, f"endpoint refused: cannot resolve {host!r} ({exc})") from exc
            found = list(dict.fromkeys((info[0], info[4][:2]) for info in infos))
            if not found:
                raise EndpointRefused(field, f"endpoint refused: {host!r} resolves to no address")
        for _family, sockaddr in found:
            why = self.address_refusal(ipaddress.ip_address(sockaddr[0].split("%")[0]))
            if why:
                self._refuse(field, (why if literal is not None else f"{host!r} resolves to {why}")
                             + "; the server's operator may allow it with --allow-endpoint")
        return found

    @staticmethod
    def _refuse(field: str, reason: str):
        raise EndpointRefused(field, f"endpoint refused: {reason}")

    def check_host(self, host: str, port: int, field: str = "base_url") -> None:
        """Refuse (EndpointRefused naming ``field``) a URL host that is not listed and is,
        or resolves now to, an address that may not be reached."""
        name = unquote(host).lower().rstrip(".")
        if literal_address(host) is None:
            if name in self.names:
                return
            if name == "localhost" or name.endswith(".localhost"):
                self._refuse(field, f"{host!r} is a loopback name; the server's operator may allow it with "
                                    "--allow-endpoint")
        self.addresses(host, port, field)

    def check_url(self, url: str, field: str = "base_url") -> None:
        """Refuse (EndpointRefused naming ``field``) an endpoint URL this policy does not
        allow: not http(s), user info or a backslash in it (parsers disagree on those),
        or a host ``check_host`` refuses."""
        import httpx2
        if "\\" in url:
            self._refuse(field, "a backslash in a URL (URL parsers read it differently)")
        try:
            parsed = httpx2.URL(url)
        except (httpx2.InvalidURL, TypeError) as exc:
            raise EndpointRefused(field, f"endpoint refused: not a URL ({exc})") from exc
        if parsed.scheme not in ("http", "https") or not parsed.host:
            self._refuse(field, "an http:// or https:// URL with a host")
        if parsed.userinfo:
            self._refuse(field, "user info (user@) in an endpoint URL")
        self.check_host(parsed.host, parsed.port or (443 if parsed.scheme == "https" else 80), field)


_installed: EndpointPolicy | None = None
_lock = threading.Lock()


def install(policy: EndpointPolicy | None) -> EndpointPolicy | None:
    """Make ``policy`` the process-wide endpoint policy (None: no policy, as a command-
    line run has); returns the one it replaces (to restore it afterwards)."""
    global _installed
    with _lock:
        previous, _installed = _installed, policy
    return previous


def current() -> EndpointPolicy | None:
    """The installed policy, or None when this process follows none (a local run)."""
    return _installed


def check_url(url: str, field: str = "base_url") -> None:
    """``current()`` (or, with none installed, the default policy: public addresses
    only) checks ``url``; raises EndpointRefused naming ``field``."""
    (current() or EndpointPolicy()).check_url(url, field)


def http_client(timeout: float | None = None):
    """An ``httpx2.Client`` whose every connection obeys ``current()`` (the default
    policy when none is installed), as the openai SDK takes it (``http_client=``).

    Each new connection resolves its host, checks every address (EndpointPolicy.addresses)
    and connects to the checked address; a refused one fails before any packet is sent
    with ``httpx2.ConnectError`` (the SDK's APIConnectionError).  Redirects are not
    followed, and proxies from the environment are not used (a proxy would make the
    connection instead).  ``timeout`` is the client's default, in seconds."""
    import httpx2
    return httpx2.Client(transport=_guarded_transport(current() or EndpointPolicy()), timeout=timeout,
                         follow_redirects=False, trust_env=False)


def _guarded_transport(policy: EndpointPolicy):
    import httpcore2
    import httpx2

    class GuardedBackend(httpcore2.NetworkBackend):
        """httpcore's network backend with the policy in front of every TCP connection."""

        def __init__(self):
            self.direct = httpcore2.SyncBackend()

        def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
            try:
                found = policy.addresses(host.strip("[]"), port, "base_url")
            except EndpointRefused as exc:
                log.warning("a model connection was refused: %s", exc)
                raise httpcore2.ConnectError(str(exc)) from exc
            error = None
            for _family, sockaddr in found:  # the checked addresses, as literals: no second lookup
                try:
                    return self.direct.connect_tcp(sockaddr[0], port, timeout, local_address, socket_options)
                except httpcore2.ConnectError as exc:
                    error = exc
            raise error

        def connect_unix_socket(self, path, timeout=None, socket_options=None):
            raise httpcore2.ConnectError("endpoint refused: a Unix socket")

        def sleep(self, seconds):
            self.direct.sleep(seconds)

    class GuardedTransport(httpx2.HTTPTransport):
        """``httpx2.HTTPTransport`` over a connection pool whose backend is GuardedBackend
        (httpx2 takes no backend argument; its pool, ``_pool``, is what it sends through)."""

        def __init__(self):
            super().__init__()
            self._pool = httpcore2.ConnectionPool(
                ssl_context=httpx2.create_ssl_context(), max_connections=100, max_keepalive_connections=20,
                keepalive_expiry=5.0, network_backend=GuardedBackend())

    return GuardedTransport()
