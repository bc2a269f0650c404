"""A merchant selling subscriptions through the gateway: `ok` for an expected answer, `subscribed` (a
customer with a card on a weekly plan) and `Sandbox` (one merchant, its clock and its catalogue). Shared
by the e2e tests of the portal, the dashboard's records, the billing year and the ledger month."""

from __future__ import annotations

import uuid
from typing import Any

import httpx

from tests.e2e.api_client import API, Merchant
from tests.e2e.clock_steps import walk_clock

JSON = dict[str, Any]
OK_CARD = "4242424242424242"


def ok(response: httpx.Response, status: int = 200) -> Any:
    assert response.status_code == status, response.text
    return response.json()


def subscribed(client: httpx.Client, merchant: Merchant, card: str = "4242424242424242") -> tuple[str, str]:
    """A customer with a default card and a weekly 30.00 subscription: (customer id, subscription id)."""
    auth = merchant.auth
    plan = ok(client.post(f"{API}/plans", json={"name": "Pro"}, headers=auth), 201)
    body = {"amount_cents": 3000, "currency": "usd", "interval": "weekly"}
    price = ok(client.post(f"{API}/plans/{plan['id']}/prices", json=body, headers=auth), 201)
    email = f"c{uuid.uuid4().hex[:12]}@example.com"
    customer = ok(client.post(f"{API}/customers", json={"email": email}, headers=auth), 201)
    method = {"type": "card", "card": {"number": card, "exp_month": 12, "exp_year": 2099, "cvc": "123"}}
    ok(client.post(f"{API}/customers/{customer['id']}/payment-methods", json=method, headers=auth), 201)
    body = {"customer_id": customer["id"], "price_id": price["id"]}
    sub = ok(client.post(f"{API}/subscriptions", json=body, headers=auth), 201)
    return str(customer["id"]), str(sub["id"])


class Sandbox:
    """One merchant and its clock."""

    def __init__(self, client: httpx.Client, merchant: Merchant) -> None:
        self.client = client
        self.merchant = merchant

    def get(self, path: str, **params: Any) -> Any:
        return ok(self.client.get(f"{API}{path}", params=params, headers=self.merchant.auth))

    def post(self, path: str, body: JSON | None = None, status: int = 200, **params: Any) -> Any:
        sent = self.client.post(f"{API}{path}", json=body, params=params, headers=self.merchant.auth)
        return ok(sent, status)

    def now(self) -> int:
        return int(self.get("/test_helpers/clock")["now"])

    def advance(self, to: int) -> None:
        """To `to`, in the steps DESIGN §10.5 allows (two intervals of the shortest live price)."""
        assert walk_clock(self.client, self.merchant.auth, to) == to

    def at_exactly(self, moment: int) -> None:
        """The clock at `moment` with every step due before it applied: a first advance to a minute
        before runs them (taking what it takes), the second has nothing to run and answers at once."""
        if self.now() < moment - 60:
            self.advance(moment - 60)
        self.advance(moment)

    def customer(self, card: str, address: JSON | None = None) -> str:
        body: JSON = {"email": f"c{uuid.uuid4().hex[:12]}@example.com"}
        if address is not None:
            body["address"] = address
        created = self.post("/customers", body, 201)
        self.attach(created["id"], card)
        return str(created["id"])

    def attach(self, customer_id: str, card: str, **extra: Any) -> JSON:
        card_body = {"number": card, "exp_month": 12, "exp_year": 2099, "cvc": "123"}
        return dict(
            self.post(
                f"/customers/{customer_id}/payment-methods", {"type": "card", "card": card_body, **extra}, 201
            )
        )

    def price(self, amount: int, trial_days: int | None = None) -> str:
        plan = self.post("/plans", {"name": f"Plan {amount}"}, 201)
        body: JSON = {"amount_cents": amount, "currency": "usd", "interval": "monthly"}
        if trial_days is not None:
            body["trial_period_days"] = trial_days
        return str(self.post(f"/plans/{plan['id']}/prices", body, 201)["id"])

    def tax_rate(self, percentage: str, inclusive: bool, country: str, state: str) -> str:
        body = {
            "percentage": percentage,
            "display_name": "Tax",
            "inclusive": inclusive,
            "country": country,
            "state": state,
        }
        return str(self.post("/tax-rates", body, 201)["id"])

    def invoice(self, invoice_id: str) -> JSON:
        return dict(self.get(f"/invoices/{invoice_id}"))

    def subscription(self, sub_id: str) -> JSON:
        return dict(self.get(f"/subscriptions/{sub_id}"))
