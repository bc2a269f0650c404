"""A merchant's sandbox clock through the gateway (DESIGN §9): read it, move it forward, and name a UTC
minute in Unix seconds. Shared by the e2e tests of the clock, the balance and payouts, and the billing
year and ledger month."""

from __future__ import annotations

from datetime import UTC, datetime

import httpx

from tests.e2e.api_client import API, Merchant

CLOCK = f"{API}/test_helpers/clock"
HOUR = 3600
DAY = 24 * HOUR


def clock_now(client: httpx.Client, merchant: Merchant) -> int:
    response = client.get(CLOCK, headers=merchant.auth)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["object"] == "test_clock"
    return int(body["now"])


def advance(client: httpx.Client, merchant: Merchant, seconds: int) -> int:
    to = clock_now(client, merchant) + seconds
    response = client.post(f"{CLOCK}/advance", json={"to": to}, headers=merchant.auth)
    assert response.status_code == 200, response.text
    assert response.json() == {"object": "test_clock", "now": to}
    return to


def t(text: str) -> int:
    """'2027-02-28 00:01' (UTC) → Unix seconds."""
    return int(datetime.strptime(text, "%Y-%m-%d %H:%M").replace(tzinfo=UTC).timestamp())
