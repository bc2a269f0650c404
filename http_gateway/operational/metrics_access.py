"""Who may read GET /metrics (DESIGN §10.9): a loopback peer (a scraper on the host), or a caller that
shows `Authorization: Bearer $METRICS_TOKEN`. Everyone else gets the plain 404 of an unknown URL, so the
route's existence is not advertised on the public API port. A pure rule, apart from the request.
"""

from __future__ import annotations

import hmac
import ipaddress


def metrics_allowed(peer: str, authorization: str | None, token: str | None) -> bool:
    """`peer` is the client address as the gateway trusts it (behind a TLS proxy: the forwarded one)."""
    if _is_loopback(peer):
        return True
    if not token or not authorization:
        return False
    scheme, _, presented = authorization.strip().partition(" ")
    if scheme.lower() != "bearer":
        return False
    return hmac.compare_digest(presented.strip().encode(), token.encode())


def _is_loopback(peer: str) -> bool:
    try:
        return ipaddress.ip_address(peer.strip().strip("[]")).is_loopback
    except ValueError:
        return False  # "unknown", a name, or nothing: not provably this host
