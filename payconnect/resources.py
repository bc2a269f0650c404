"""The API's resources as attributes of the client: each method is one call, named like the route.

Lists answer a ListObject whose `auto_paging_iter()` fetches the following pages; creates accept an
`idempotency_key` (one is generated otherwise) that every automatic retry reuses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from payconnect.objects import ListObject, to_object
from payconnect.transport import API_PREFIX, Requester

__all__ = [
    "Balance",
    "Charges",
    "Checkout",
    "CliSessions",
    "Customers",
    "Events",
    "Invoices",
    "Payouts",
    "Plans",
    "Prices",
    "Refunds",
    "SubscriptionItems",
    "Subscriptions",
    "TaxRates",
    "TestHelpers",
    "WebhookEndpoints",
]


def _body(**fields: Any) -> dict[str, Any]:
    """Only the fields given: an omitted optional parameter is not sent as null."""
    return {key: value for key, value in fields.items() if value is not None}


class Resource:
    path = ""

    def __init__(self, requester: Requester) -> None:
        self._requester = requester

    def _call(self, method: str, path: str, **kwargs: Any) -> Any:
        return to_object(self._requester.request(method, API_PREFIX + path, **kwargs))

    def _list(self, path: str, params: Mapping[str, Any]) -> ListObject:
        def next_page(after: str) -> ListObject:
            return self._list(path, {**params, "starting_after": after})

        body = self._requester.request("GET", API_PREFIX + path, params=params)
        return ListObject.of(body, next_page)


class Charges(Resource):
    def create(
        self,
        *,
        amount: int,
        currency: str,
        return_url: str,
        cancel_url: str | None = None,
        description: str | None = None,
        metadata: Mapping[str, str] | None = None,
        customer_email: str | None = None,
        idempotency_key: str | None = None,
    ) -> Any:
        body = _body(
            amount=amount,
            currency=currency,
            return_url=return_url,
            cancel_url=cancel_url,
            description=description,
            metadata=metadata,
            customer_email=customer_email,
        )
        return self._call("POST", "/charges", json=body, idempotency_key=idempotency_key)

    def retrieve(self, charge_id: str) -> Any:
        return self._call("GET", f"/charges/{charge_id}")

    def list(self, *, limit: int | None = None, status: str | None = None, **filters: Any) -> ListObject:
        return self._list("/charges", _body(limit=limit, status=status, **filters))

    def capture(
        self, charge_id: str, *, amount: int | None = None, idempotency_key: str | None = None
    ) -> Any:
        body = _body(amount=amount)
        return self._call("POST", f"/charges/{charge_id}/capture", json=body, idempotency_key=idempotency_key)

    def refund(
        self,
        charge_id: str,
        *,
        amount: int | None = None,
        reason: str | None = None,
        idempotency_key: str | None = None,
    ) -> Any:
        body = _body(amount=amount, reason=reason)
        return self._call("POST", f"/charges/{charge_id}/refunds", json=body, idempotency_key=idempotency_key)

    def void(self, charge_id: str, *, idempotency_key: str | None = None) -> Any:
        return self._call("POST", f"/charges/{charge_id}/void", json={}, idempotency_key=idempotency_key)


class Refunds(Resource):
    """Refunds are made on their charge: `client.refunds.create(charge=…)` is `charges.refund(…)`."""

    def create(
        self,
        *,
        charge: str,
        amount: int | None = None,
        reason: str | None = None,
        idempotency_key: str | None = None,
    ) -> Any:
        return Charges(self._requester).refund(
            charge, amount=amount, reason=reason, idempotency_key=idempotency_key
        )


class Checkout(Resource):
    """The hosted checkout's JSON API (public): what a customer's browser does, for sandbox scripts."""

    def retrieve(self, charge_id: str) -> Any:
        return to_object(self._requester.request("GET", f"/api/v1/checkout/{charge_id}"))

    def complete(
        self,
        charge_id: str,
        *,
        card_number: str | None = None,
        paypal_email: str | None = None,
        exp_month: int = 12,
        exp_year: int = 2099,
        cvc: str = "123",
    ) -> Any:
        if paypal_email is not None:
            body: dict[str, Any] = {
                "paymentMethod": "paypal",
                "paymentMethodDetails": {"email": paypal_email},
            }
        else:
            details = {"card_number": card_number, "exp_month": exp_month, "exp_year": exp_year, "cvc": cvc}
            body = {"paymentMethod": "card", "paymentMethodDetails": details}
        return to_object(self._requester.request("POST", f"/api/v1/checkout/{charge_id}/complete", json=body))


class Customers(Resource):
    def create(
        self,
        *,
        email: str,
        name: str | None = None,
        address: Mapping[str, str] | None = None,
        metadata: Mapping[str, str] | None = None,
        idempotency_key: str | None = None,
    ) -> Any:
        body = _body(email=email, name=name, address=address, metadata=metadata)
        return self._call("POST", "/customers", json=body, idempotency_key=idempotency_key)

    def retrieve(self, customer_id: str) -> Any:
        return self._call("GET", f"/customers/{customer_id}")

    def update(self, customer_id: str, **fields: Any) -> Any:
        return self._call("PATCH", f"/customers/{customer_id}", json=fields)

    def list(self, *, limit: int | None = None, email: str | None = None) -> ListObject:
        return self._list("/customers", _body(limit=limit, email=email))

    def add_payment_method(
        self,
        customer_id: str,
        *,
        card: Mapping[str, Any] | None = None,
        paypal_email: str | None = None,
        set_default: bool | None = None,
        idempotency_key: str | None = None,
    ) -> Any:
        if paypal_email is not None:
            body = _body(type="paypal", paypal={"email": paypal_email}, set_default=set_default)
        else:
            body = _body(type="card", card=dict(card or {}), set_default=set_default)
        path = f"/customers/{customer_id}/payment-methods"
        return self._call("POST", path, json=body, idempotency_key=idempotency_key)

    def list_payment_methods(self, customer_id: str, *, limit: int | None = None) -> ListObject:
        return self._list(f"/customers/{customer_id}/payment-methods", _body(limit=limit))


class Plans(Resource):
    def create(self, *, name: str, description: str | None = None, idempotency_key: str | None = None) -> Any:
        body = _body(name=name, description=description)
        return self._call("POST", "/plans", json=body, idempotency_key=idempotency_key)

    def retrieve(self, plan_id: str) -> Any:
        return self._call("GET", f"/plans/{plan_id}")

    def list(self, *, limit: int | None = None) -> ListObject:
        return self._list("/plans", _body(limit=limit))


class Prices(Resource):
    def create(
        self,
        *,
        plan: str,
        amount_cents: int,
        currency: str,
        interval: str,
        interval_count: int | None = None,
        trial_period_days: int | None = None,
        idempotency_key: str | None = None,
    ) -> Any:
        body = _body(
            amount_cents=amount_cents,
            currency=currency,
            interval=interval,
            interval_count=interval_count,
            trial_period_days=trial_period_days,
        )
        return self._call("POST", f"/plans/{plan}/prices", json=body, idempotency_key=idempotency_key)

    def retrieve(self, price_id: str) -> Any:
        return self._call("GET", f"/prices/{price_id}")


class TaxRates(Resource):
    def create(self, **fields: Any) -> Any:
        idempotency_key = fields.pop("idempotency_key", None)
        return self._call("POST", "/tax-rates", json=fields, idempotency_key=idempotency_key)

    def retrieve(self, tax_rate_id: str) -> Any:
        return self._call("GET", f"/tax-rates/{tax_rate_id}")

    def list(self, *, limit: int | None = None) -> ListObject:
        return self._list("/tax-rates", _body(limit=limit))


class SubscriptionItems(Resource):
    def create(
        self,
        subscription_id: str,
        *,
        price_id: str,
        quantity: int | None = None,
        proration_behavior: str | None = None,
        idempotency_key: str | None = None,
    ) -> Any:
        body = _body(priceId=price_id, quantity=quantity, prorationBehavior=proration_behavior)
        path = f"/subscriptions/{subscription_id}/items"
        return self._call("POST", path, json=body, idempotency_key=idempotency_key)

    def list(self, subscription_id: str, *, limit: int | None = None) -> ListObject:
        return self._list(f"/subscriptions/{subscription_id}/items", _body(limit=limit))

    def update(self, subscription_id: str, item_id: str, *, quantity: int) -> Any:
        return self._call(
            "PATCH", f"/subscriptions/{subscription_id}/items/{item_id}", json={"quantity": quantity}
        )

    def delete(self, subscription_id: str, item_id: str, *, immediate: bool = False) -> Any:
        path = f"/subscriptions/{subscription_id}/items/{item_id}"
        return self._call("DELETE", path, params={"immediate": immediate})


class Subscriptions(Resource):
    def __init__(self, requester: Requester) -> None:
        super().__init__(requester)
        self.items = SubscriptionItems(requester)

    def create(
        self,
        *,
        customer_id: str,
        price_id: str,
        tax_rate_id: str | None = None,
        metadata: Mapping[str, str] | None = None,
        idempotency_key: str | None = None,
    ) -> Any:
        body = _body(customer_id=customer_id, price_id=price_id, tax_rate_id=tax_rate_id, metadata=metadata)
        return self._call("POST", "/subscriptions", json=body, idempotency_key=idempotency_key)

    def retrieve(self, subscription_id: str) -> Any:
        return self._call("GET", f"/subscriptions/{subscription_id}")

    def list(self, *, limit: int | None = None, **filters: Any) -> ListObject:
        return self._list("/subscriptions", _body(limit=limit, **filters))

    def update(self, subscription_id: str, **fields: Any) -> Any:
        return self._call("PATCH", f"/subscriptions/{subscription_id}", json=fields)

    def cancel(
        self, subscription_id: str, *, at_period_end: bool = False, idempotency_key: str | None = None
    ) -> Any:
        body = {"at_period_end": at_period_end}
        path = f"/subscriptions/{subscription_id}/cancel"
        return self._call("POST", path, json=body, idempotency_key=idempotency_key)


class Invoices(Resource):
    def retrieve(self, invoice_id: str) -> Any:
        return self._call("GET", f"/invoices/{invoice_id}")

    def list(self, *, limit: int | None = None, **filters: Any) -> ListObject:
        return self._list("/invoices", _body(limit=limit, **filters))


class Events(Resource):
    def retrieve(self, event_id: str) -> Any:
        return self._call("GET", f"/events/{event_id}")

    def list(self, *, limit: int | None = None, type: str | None = None) -> ListObject:
        return self._list("/events", _body(limit=limit, type=type))

    def resend(self, event_id: str, *, idempotency_key: str | None = None) -> Any:
        return self._call("POST", f"/events/{event_id}/resend", json={}, idempotency_key=idempotency_key)


class WebhookEndpoints(Resource):
    def create(
        self,
        *,
        url: str,
        events: Sequence[str],
        description: str | None = None,
        idempotency_key: str | None = None,
    ) -> Any:
        body = _body(url=url, events=list(events), description=description)
        return self._call("POST", "/webhooks", json=body, idempotency_key=idempotency_key)

    def retrieve(self, endpoint_id: str) -> Any:
        return self._call("GET", f"/webhooks/{endpoint_id}")

    def list(self) -> ListObject:
        return self._list("/webhooks", {})

    def update(self, endpoint_id: str, **fields: Any) -> Any:
        return self._call("PATCH", f"/webhooks/{endpoint_id}", json=fields)

    def delete(self, endpoint_id: str) -> Any:
        return self._call("DELETE", f"/webhooks/{endpoint_id}")

    def deliveries(self, endpoint_id: str, *, limit: int | None = None) -> ListObject:
        return self._list(f"/webhooks/{endpoint_id}/deliveries", _body(limit=limit))


class Balance(Resource):
    def retrieve(self) -> Any:
        return self._call("GET", "/balance")

    def transactions(self, *, limit: int | None = None, **filters: Any) -> ListObject:
        return self._list("/balance-transactions", _body(limit=limit, **filters))


class Payouts(Resource):
    def retrieve(self, payout_id: str) -> Any:
        return self._call("GET", f"/payouts/{payout_id}")

    def list(self, *, limit: int | None = None, **filters: Any) -> ListObject:
        return self._list("/payouts", _body(limit=limit, **filters))


class TestHelpers(Resource):
    """The sandbox's own tools (TEST secret key): its clock, disputes, and the reset."""

    __test__ = False  # not a pytest class, whatever its name

    def clock(self) -> Any:
        return self._call("GET", "/test_helpers/clock")

    def advance_clock(self, *, to: int, idempotency_key: str | None = None) -> Any:
        return self._call(
            "POST", "/test_helpers/clock/advance", json={"to": to}, idempotency_key=idempotency_key
        )

    def dispute(self, charge_id: str, *, idempotency_key: str | None = None) -> Any:
        path = f"/test_helpers/charges/{charge_id}/dispute"
        return self._call("POST", path, json={}, idempotency_key=idempotency_key)

    def close_dispute(self, dispute_id: str, *, outcome: str) -> Any:
        return self._call("POST", f"/test_helpers/disputes/{dispute_id}/close", json={"outcome": outcome})

    def reset(self, *, idempotency_key: str | None = None) -> Any:
        return self._call("POST", "/test_helpers/reset", json={}, idempotency_key=idempotency_key)


class CliSessions(Resource):
    """`payconnect listen` sessions: the stream itself is read by payconnect.cli.listen."""

    def create(self, *, device_name: str, idempotency_key: str | None = None) -> Any:
        body = {"device_name": device_name}
        return self._call("POST", "/cli/sessions", json=body, idempotency_key=idempotency_key)

    def close(self, session_id: str) -> Any:
        return self._call("DELETE", f"/cli/sessions/{session_id}")

    def record_response(
        self,
        session_id: str,
        *,
        event_id: str,
        status: int | None,
        error: str | None = None,
        latency_ms: int | None = None,
    ) -> Any:
        body = {"event_id": event_id, "status": status, **_body(error=error, latency_ms=latency_ms)}
        return self._call("POST", f"/cli/sessions/{session_id}/responses", json=body)

    def responses(self, session_id: str, *, limit: int | None = None) -> ListObject:
        return self._list(f"/cli/sessions/{session_id}/responses", _body(limit=limit))
