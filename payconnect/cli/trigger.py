"""`payconnect trigger EVENT`: make the sandbox emit EVENT by doing, through the API with the TEST key, what
causes it — sandbox cards at checkout, test helpers, and the sandbox clock for what happens later
(payouts at 00:00 UTC, notices, arrivals). Each scenario returns the ids of the objects it made.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from payconnect.client import Client
from payconnect.errors import PayConnectError

__all__ = ["SCENARIOS", "TriggerError", "run_trigger"]

RETURN_URL = "https://example.com/payconnect/return"
CANCEL_URL = "https://example.com/payconnect/cancel"
CARD_OK = "4242424242424242"
CARD_DECLINED = "4000000000000002"
CARD_DECLINES_LATER = "4000000000000341"
"""Attaches to a customer fine; every later charge is declined: the sandbox's dunning card."""
FAILING_PAYOUT_ACCOUNT = "000111111116"
"""The sandbox's test account whose payouts fail on arrival."""
MAX_DAYS = 10
"""How far the clock may be moved, a day at a time, while waiting for a payout or a notice."""

Ids = dict[str, str]


class TriggerError(PayConnectError):
    """The scenario could not make its event happen (the message says why)."""


class Trigger:
    def __init__(self, client: Client, email: str | None = None, password: str | None = None) -> None:
        self.client = client
        self.email = email
        self.password = password

    # Building blocks -------------------------------------------------------------------------------

    def charge(self, amount: int = 2000) -> Any:
        return self.client.charges.create(
            amount=amount,
            currency="usd",
            return_url=RETURN_URL,
            cancel_url=CANCEL_URL,
            description="payconnect trigger",
        )

    def paid_charge(self, amount: int = 2000) -> Any:
        charge = self.charge(amount)
        result = self.client.checkout.complete(charge.id, card_number=CARD_OK)
        if not result.get("success"):
            raise TriggerError(f"the sandbox card was declined: {result.get('errorCode')}")
        return charge

    def captured_charge(self, amount: int = 2000) -> Any:
        charge = self.paid_charge(amount)
        self.client.charges.capture(charge.id)
        return charge

    def customer(self, card: str = CARD_OK) -> tuple[Any, Any]:
        customer = self.client.customers.create(
            email=f"trigger-{uuid.uuid4().hex[:12]}@example.com", name="Trigger"
        )
        method = self.client.customers.add_payment_method(
            customer.id,
            card={"number": card, "exp_month": 12, "exp_year": 2099, "cvc": "123"},
            set_default=True,
        )
        return customer, method

    def price(
        self, interval: str = "monthly", trial_days: int | None = None, amount: int = 2000
    ) -> tuple[Any, Any]:
        plan = self.client.plans.create(name="payconnect trigger")
        price = self.client.prices.create(
            plan=plan.id, amount_cents=amount, currency="usd", interval=interval, trial_period_days=trial_days
        )
        return plan, price

    def subscription(
        self, interval: str = "monthly", trial_days: int | None = None, card: str = CARD_OK
    ) -> tuple[Ids, Any]:
        customer, method = self.customer(card)
        plan, price = self.price(interval, trial_days)
        subscription = self.client.subscriptions.create(customer_id=customer.id, price_id=price.id)
        ids = {
            "customer": customer.id,
            "payment_method": method.id,
            "plan": plan.id,
            "price": price.id,
            "subscription": subscription.id,
        }
        return ids, subscription

    def now(self) -> datetime:
        return datetime.fromtimestamp(int(self.client.test_helpers.clock().now), tz=UTC)

    def advance(self, to: datetime) -> None:
        self.client.test_helpers.advance_clock(to=int(to.timestamp()))

    def advance_past_midnight(self) -> None:
        """To one minute past the next 00:00 UTC of TEST time, when the daily work runs."""
        now = self.now()
        midnight = datetime.combine(now.date() + timedelta(days=1), datetime.min.time(), tzinfo=UTC)
        self.advance(midnight + timedelta(minutes=1))

    def advance_until(self, found: Callable[[], str | None], what: str) -> str:
        """Day by day (advances are limited), past each midnight, until `found` finds the object."""
        for _ in range(MAX_DAYS):
            object_id = found()
            if object_id:
                return object_id
            self.advance_past_midnight()
        object_id = found()
        if not object_id:
            raise TriggerError(f"no {what} within {MAX_DAYS} days of sandbox time")
        return object_id

    def newest_payout(self, status: str | None = None, after: str | None = None) -> str | None:
        for payout in self.client.payouts.list(limit=10).data:
            if payout.id == after:
                return None
            if status is None or payout.status == status:
                return str(payout.id)
        return None

    def payout(self) -> Ids:
        newest_before = self.newest_payout()
        charge = self.captured_charge(amount=10_000)
        payout = self.advance_until(lambda: self.newest_payout(after=newest_before), "payout")
        return {"charge": charge.id, "payout": payout}

    def arrived_payout(self, status: str) -> Ids:
        ids = self.payout()
        payout_id = ids["payout"]
        self.advance_until(
            lambda: payout_id if self.client.payouts.retrieve(payout_id).status == status else None,
            f"{status} payout",
        )
        return ids

    def set_failing_payout_account(self) -> None:
        if not (self.email and self.password):
            raise TriggerError(
                "payout.failed needs the account's login (--email and --password, or PAYCONNECT_EMAIL and "
                f"PAYCONNECT_PASSWORD): it sets the payout account to the sandbox's failing account "
                f"{FAILING_PAYOUT_ACCOUNT}"
            )
        requester = self.client.requester
        token = requester.request(
            "POST", "/api/v1/auth/token", json={"email": self.email, "password": self.password}
        )["access_token"]
        # The payout account changes only with the password (DESIGN §10.9).
        body = {"payout_account_number": FAILING_PAYOUT_ACCOUNT, "current_password": self.password}
        requester.request("PATCH", "/api/v1/merchants/me", json=body, bearer=token)

    # Scenarios, one per event type -----------------------------------------------------------------

    def charge_created(self) -> Ids:
        return {"charge": self.charge().id}

    def charge_completed(self) -> Ids:
        return {"charge": self.paid_charge().id}

    def charge_failed(self) -> Ids:
        charge = self.charge()
        self.client.checkout.complete(charge.id, card_number=CARD_DECLINED)
        return {"charge": charge.id}

    def charge_refunded(self) -> Ids:
        charge = self.captured_charge()
        refund = self.client.charges.refund(charge.id)
        return {"charge": charge.id, "refund": refund.id}

    def charge_disputed(self) -> Ids:
        charge = self.captured_charge()
        dispute = self.client.test_helpers.dispute(charge.id)
        return {"charge": charge.id, "dispute": dispute.id}

    def payout_created(self) -> Ids:
        return self.payout()

    def payout_completed(self) -> Ids:
        return self.arrived_payout("paid")

    def payout_failed(self) -> Ids:
        self.set_failing_payout_account()
        return self.arrived_payout("failed")

    def invoice_paid(self) -> Ids:
        ids, subscription = self.subscription()
        if subscription.get("latest_invoice"):
            ids["invoice"] = str(subscription.latest_invoice)
        return ids

    def invoice_payment_failed(self) -> Ids:
        ids, subscription = self.subscription(card=CARD_DECLINES_LATER)
        if subscription.get("latest_invoice"):
            ids["invoice"] = str(subscription.latest_invoice)
        return ids

    def invoice_upcoming(self) -> Ids:
        ids, _ = self.subscription(interval="daily")
        self.advance_past_midnight()
        return ids

    def subscription_created(self) -> Ids:
        ids, _ = self.subscription()
        return ids

    def subscription_canceled(self) -> Ids:
        ids, _ = self.subscription()
        self.client.subscriptions.cancel(ids["subscription"])
        return ids

    def subscription_trial_will_end(self) -> Ids:
        ids, _ = self.subscription(trial_days=2)
        self.advance_past_midnight()
        return ids

    def subscription_item(self, change: str) -> Ids:
        ids, subscription = self.subscription()
        _, extra = self.price(amount=500)
        items = self.client.subscriptions.items
        item = items.create(subscription.id, price_id=extra.id)
        ids["subscription_item"] = item.id
        if change in ("updated", "deleted"):
            items.update(subscription.id, item.id, quantity=2)
        if change == "deleted":
            items.delete(subscription.id, item.id, immediate=True)
        return ids

    def subscription_updated(self) -> Ids:
        ids, subscription = self.subscription()
        self.client.subscriptions.update(subscription.id, metadata={"payconnect": "trigger"})
        return ids

    def customer_created(self) -> Ids:
        customer, method = self.customer()
        return {"customer": customer.id, "payment_method": method.id}

    def customer_updated(self) -> Ids:
        customer, method = self.customer()
        self.client.customers.update(customer.id, name="Trigger (updated)")
        return {"customer": customer.id, "payment_method": method.id}

    def payment_method_detached(self) -> Ids:
        customer, method = self.customer()
        self.client.requester.request(
            "DELETE", f"/api/v1/connect/customers/{customer.id}/payment-methods/{method.id}"
        )
        return {"customer": customer.id, "payment_method": method.id}

    def invoice_voided(self) -> Ids:
        ids = self.invoice_payment_failed()
        if "invoice" not in ids:
            raise TriggerError("the subscription made no open invoice to void")
        self.client.requester.request("POST", f"/api/v1/connect/invoices/{ids['invoice']}/void", json={})
        return ids


SCENARIOS: dict[str, Callable[[Trigger], Ids]] = {
    # The spec's event table, in its order.
    "charge.created": Trigger.charge_created,
    "charge.completed": Trigger.charge_completed,
    "charge.failed": Trigger.charge_failed,
    "charge.refunded": Trigger.charge_refunded,
    "charge.disputed": Trigger.charge_disputed,
    "payout.created": Trigger.payout_created,
    "payout.completed": Trigger.payout_completed,
    "payout.failed": Trigger.payout_failed,
    "invoice.paid": Trigger.invoice_paid,
    "invoice.payment_failed": Trigger.invoice_payment_failed,
    "invoice.upcoming": Trigger.invoice_upcoming,
    "subscription.created": Trigger.subscription_created,
    "subscription.canceled": Trigger.subscription_canceled,
    "subscription.trial_will_end": Trigger.subscription_trial_will_end,
    "subscription_item.created": lambda t: t.subscription_item("created"),
    "subscription_item.updated": lambda t: t.subscription_item("updated"),
    "subscription_item.deleted": lambda t: t.subscription_item("deleted"),
    # The platform's further types.
    "customer.created": Trigger.customer_created,
    "customer.updated": Trigger.customer_updated,
    "payment_method.attached": Trigger.customer_created,
    "payment_method.detached": Trigger.payment_method_detached,
    "subscription.updated": Trigger.subscription_updated,
    "invoice.created": Trigger.invoice_paid,
    "invoice.voided": Trigger.invoice_voided,
}


def run_trigger(
    client: Client, event_type: str, email: str | None = None, password: str | None = None
) -> Ids:
    scenario = SCENARIOS.get(event_type)
    if scenario is None:
        raise TriggerError(f"unknown event type {event_type!r}; one of: {', '.join(SCENARIOS)}")
    return scenario(Trigger(client, email, password))
