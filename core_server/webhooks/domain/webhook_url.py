"""Which webhook URLs and resolved addresses the platform may call (DESIGN §5a; SSRF protection).

TEST endpoints may use plain http; LIVE endpoints need https. Both need a public address: a platform
that lets any sandbox account reach its own loopback or private network is an SSRF hole. Only when the
operator sets WEBHOOK_ALLOW_PRIVATE_TARGETS=1 (a local stack, the test suite) may TEST endpoints target
loopback and private addresses, so developers can receive events on their own machine. No environment
may ever reach link-local (cloud metadata), multicast, reserved or unspecified addresses. The host is
resolved and checked when the endpoint is saved and again before every delivery, and the delivery
connects to the address that was checked, so a DNS answer that changes later cannot redirect it.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import urlsplit

from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.errors import ParameterInvalid

MAX_WEBHOOK_URL = 2048
IpAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


@dataclass(frozen=True, slots=True)
class WebhookTarget:
    """A syntactically valid endpoint URL, split for resolution and pinned connection."""

    url: str
    scheme: str
    host: str
    port: int
    ip_literal: bool


def _invalid(message: str) -> ParameterInvalid:
    return ParameterInvalid(message, param="url")


def parse_webhook_url(url: str, environment: Environment, *, allow_private: bool = False) -> WebhookTarget:
    """Absolute http(s) URL with a host and no credentials; https in LIVE; a literal IP is checked here.

    `allow_private`: the operator's WEBHOOK_ALLOW_PRIVATE_TARGETS; it widens TEST only, never LIVE.
    """
    if len(url) > MAX_WEBHOOK_URL:
        raise _invalid(f"url must be at most {MAX_WEBHOOK_URL} characters.")
    if not url or any(c.isspace() or ord(c) < 0x20 for c in url):
        raise _invalid("url must be an absolute http(s) URL.")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise _invalid("url must be a valid URL.") from exc
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not parts.hostname:
        raise _invalid("url must be an absolute http(s) URL.")
    if environment is Environment.LIVE and scheme != "https":
        raise _invalid("Live webhook endpoints must use https.")
    if parts.username is not None or parts.password is not None:
        # Credentials in the URL would end up in logs and delivery records.
        raise _invalid("url must not contain a user name or password.")
    host = parts.hostname.lower().rstrip(".")
    literal = _ip(host)
    if literal is not None:
        reason = refusal_reason(literal, environment, allow_private=allow_private)
        if reason:
            raise _invalid(f"url {reason}.")
    elif not _private_allowed(environment, allow_private) and (
        host == "localhost" or host.endswith(".localhost")
    ):
        raise _invalid(f"url {PUBLIC_ONLY}.")
    return WebhookTarget(
        url=url,
        scheme=scheme,
        host=host,
        port=port if port is not None else (443 if scheme == "https" else 80),
        ip_literal=literal is not None,
    )


@lru_cache(maxsize=4096)
def parsed_webhook_url(url: str, environment: Environment, *, allow_private: bool = False) -> WebhookTarget:
    """`parse_webhook_url`, remembered per (url, environment, allow_private): a dispatcher parses the same
    few endpoint URLs for every delivery. Only the URL's syntax and a literal IP are judged here, both
    fixed by the arguments; a host name is still resolved and its addresses checked on every attempt. A
    refused URL raises each time (exceptions are not remembered)."""
    return parse_webhook_url(url, environment, allow_private=allow_private)


def _ip(text: str) -> IpAddress | None:
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


PUBLIC_ONLY = "must be a public address"


def _private_allowed(environment: Environment, allow_private: bool) -> bool:
    return allow_private and environment is Environment.TEST


def refusal_reason(
    address: str | IpAddress, environment: Environment, *, allow_private: bool = False
) -> str | None:
    """Why the platform must not connect to `address` for this environment, or None when it may."""
    ip = _ip(address) if isinstance(address, str) else address
    if ip is None:
        return "is not an IP address"
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped  # ::ffff:127.0.0.1 is 127.0.0.1
    private_allowed = _private_allowed(environment, allow_private)
    if ip.is_loopback:
        return None if private_allowed else PUBLIC_ONLY
    if ip.is_unspecified or ip.is_multicast or ip.is_reserved or ip.is_link_local:
        return "points to a reserved or link-local address"
    if ip.is_private and private_allowed:
        return None
    if ip.is_private or not ip.is_global:
        return "points to a private address"
    return None


def check_resolved(
    addresses: Sequence[str], environment: Environment, *, allow_private: bool = False
) -> None:
    """Every address the host resolves to must be allowed; one bad answer refuses the whole host."""
    if not addresses:
        raise _invalid("url host could not be resolved.")
    for address in addresses:
        reason = refusal_reason(address, environment, allow_private=allow_private)
        if reason:
            raise _invalid(f"url host {reason}.")
