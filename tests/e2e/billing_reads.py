"""Everything the billing invariants read, through the REST API only: one merchant's invoices, charges,
balance, balance transactions, subscriptions, customers with their credit balance transactions, and
`invoice.paid` events, every page of every list (docs/billing-invariants.md).

The reads are the merchant's own view: the invariants hold for what a merchant can see, not for rows
only the database shows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx

from tests.e2e.api_client import API, Merchant

JSON = dict[str, Any]

PAGE = 100


def checked(response: httpx.Response) -> Any:
    """A read answers 200; a 5xx here is a finding like any other (never retried away)."""
    assert response.status_code == 200, f"{response.request.method} {response.request.url}: {response.text}"
    return response.json()


def every_page(client: httpx.Client, merchant: Merchant, path: str, **params: str) -> list[JSON]:
    """All objects of a list, following `has_more` / `starting_after` (newest first, as listed)."""
    found: list[JSON] = []
    cursor: str | None = None
    while True:
        query = {"limit": str(PAGE), **params}
        if cursor is not None:
            query["starting_after"] = cursor
        page = checked(client.get(f"{API}{path}", params=query, headers=merchant.auth))
        found.extend(page["data"])
        if not page["has_more"] or not page["data"]:
            return found
        cursor = page["data"][-1]["id"]


def customer_balance_transactions(
    client: httpx.Client, merchant: Merchant, customer_id: str
) -> list[JSON] | None:
    """DESIGN §10.1's customer balance transactions, newest first; None while the route does not exist
    (404 `resource_missing` naming the URL), so the other invariants still run on code without it and
    the credit invariant alone reports the absence."""
    path = f"/customers/{customer_id}/balance-transactions"
    probe = client.get(f"{API}{path}", params={"limit": "1"}, headers=merchant.auth)
    if probe.status_code == 404 and "Unrecognized request URL" in probe.text:
        return None
    return every_page(client, merchant, path)


@dataclass(frozen=True)
class CustomerView:
    customer: JSON
    transactions: list[JSON] | None
    """Newest first, as `GET /customers/{id}/balance-transactions` lists them."""


@dataclass(frozen=True)
class BillingSnapshot:
    """One merchant's money as the API shows it at one moment."""

    invoices: list[JSON]
    charges: list[JSON]
    balance: JSON
    balance_transactions: list[JSON]
    subscriptions: list[JSON]
    customers: dict[str, CustomerView]
    paid_events: list[JSON]

    def invoice_charges(self) -> list[JSON]:
        return [c for c in self.charges if c.get("invoice")]


def read_ledger(client: httpx.Client, merchant: Merchant) -> tuple[JSON, list[JSON]]:
    """The balance and its rows, read until the balance is the same before and after the rows: a row
    turning `available` between the reads would otherwise look like a mismatch."""
    for _ in range(5):
        before = checked(client.get(f"{API}/balance", headers=merchant.auth))
        rows = every_page(client, merchant, "/balance-transactions")
        after = checked(client.get(f"{API}/balance", headers=merchant.auth))
        if before == after:
            return after, rows
    raise AssertionError(f"the balance kept moving while it was read: {before} then {after}")


def snapshot(client: httpx.Client, merchant: Merchant, customer_ids: list[str]) -> BillingSnapshot:
    balance, rows = read_ledger(client, merchant)
    customers = {
        cid: CustomerView(
            checked(client.get(f"{API}/customers/{cid}", headers=merchant.auth)),
            customer_balance_transactions(client, merchant, cid),
        )
        for cid in customer_ids
    }
    return BillingSnapshot(
        invoices=every_page(client, merchant, "/invoices"),
        charges=every_page(client, merchant, "/charges"),
        balance=balance,
        balance_transactions=rows,
        subscriptions=every_page(client, merchant, "/subscriptions"),
        customers=customers,
        paid_events=every_page(client, merchant, "/events", type="invoice.paid"),
    )
