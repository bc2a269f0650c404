"""The merchant balance through the gateway: a captured charge, the balance, its transactions. Shared by
the e2e tests of the balance and of payouts."""

from __future__ import annotations

from typing import Any

import httpx

from tests.e2e.api_client import API, Merchant, authorized_charge


def captured(
    client: httpx.Client, merchant: Merchant, amount: int, capture: int | None = None
) -> dict[str, Any]:
    charge = authorized_charge(client, merchant, amount=amount)
    body = {} if capture is None else {"amount": capture}
    response = client.post(f"{API}/charges/{charge['id']}/capture", json=body, headers=merchant.auth)
    assert response.status_code == 200, response.text
    return charge


def balance(client: httpx.Client, merchant: Merchant, prefix: str = API) -> dict[str, Any]:
    response = client.get(f"{prefix}/balance", headers=merchant.auth)
    assert response.status_code == 200, response.text
    return dict(response.json())


def transactions(client: httpx.Client, merchant: Merchant, **params: Any) -> dict[str, Any]:
    response = client.get(f"{API}/balance-transactions", params=params, headers=merchant.auth)
    assert response.status_code == 200, response.text
    return dict(response.json())
