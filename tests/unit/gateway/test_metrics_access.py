"""GET /metrics answers loopback peers or METRICS_TOKEN holders only (DESIGN §10.9)."""

from __future__ import annotations

import pytest

from http_gateway.operational.metrics_access import metrics_allowed

TOKEN = "scrape-token-0123456789"


@pytest.mark.parametrize("peer", ["127.0.0.1", "127.0.0.2", "::1", "[::1]"])
def test_a_loopback_peer_needs_no_token(peer: str) -> None:
    assert metrics_allowed(peer, None, None)
    assert metrics_allowed(peer, None, TOKEN)


@pytest.mark.parametrize("peer", ["203.0.113.5", "10.0.0.4", "2001:db8::1", "unknown", "", "localhost"])
def test_another_peer_needs_the_token(peer: str) -> None:
    assert not metrics_allowed(peer, None, TOKEN)
    assert not metrics_allowed(peer, None, None)
    assert not metrics_allowed(peer, f"Bearer {TOKEN}", None)  # no token configured: loopback only
    assert not metrics_allowed(peer, "Bearer wrong", TOKEN)
    assert not metrics_allowed(peer, f"Basic {TOKEN}", TOKEN)
    assert not metrics_allowed(peer, f"Bearer {TOKEN}x", TOKEN)
    assert not metrics_allowed(peer, "Bearer ", TOKEN)
    assert metrics_allowed(peer, f"Bearer {TOKEN}", TOKEN)
    assert metrics_allowed(peer, f"bearer {TOKEN}", TOKEN)
