"""Tenant and environment isolation: another merchant's (or environment's) objects do not exist for you.

Every merchant operation that names an object is sent with merchant B's credentials against merchant A's
object, and once more against an id of the same shape that nobody holds: both answers must be the same
404 (the same body once the id itself is blanked out), so B learns nothing about A, not even that the id
exists. The same walk is repeated with A's own live key against A's test objects (keys are per
environment), and afterwards A's objects are checked to be untouched.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from tests.e2e.api_client import API, Merchant, assert_error, authorized_charge, sign_up
from tests.e2e.security_support import call, id_blind, same_shape
from tests.support.processes import RunningProcess
from tests.webhook_receivers import WebhookReceiver, start_receiver

pytestmark = pytest.mark.e2e
HELPERS = f"{API}/test_helpers"


@dataclass(frozen=True)
class Probe:
    """One operation aimed at an object of A's: `path`, `params` and `json`'s strings name it as `{id}`."""

    name: str
    method: str
    path: str
    target: str
    json: dict[str, Any] | None = None
    params: dict[str, str] = field(default_factory=dict)
    credential: str = "secret_key"  # or "jwt" for the dashboard routes
    not_found: bool = True  # False for list cursors: those answer 400, which must match all the same


VAULT_CARD = {
    "type": "card",
    "card": {"number": "4242424242424242", "exp_month": 12, "exp_year": 2099, "cvc": "123"},
}
NEW_PRICE = {"amount_cents": 1500, "currency": "usd", "interval": "monthly"}
UNKNOWN_PRICE = "price_" + "x" * 24
PROBES = (
    Probe("retrieve charge", "GET", "/charges/{id}", "authorized"),
    Probe("capture charge", "POST", "/charges/{id}/capture", "authorized", json={}),
    Probe("capture above the amount", "POST", "/charges/{id}/capture", "authorized", json={"amount": 10**9}),
    Probe("capture a bad amount", "POST", "/charges/{id}/capture", "authorized", json={"amount": 0}),
    Probe("refund charge", "POST", "/charges/{id}/refunds", "captured", json={}),
    Probe(
        "refund above the amount",
        "POST",
        "/charges/{id}/refunds",
        "captured",
        json={"amount": 10**9, "reason": "customer_request"},
    ),
    Probe("void charge", "POST", "/charges/{id}/void", "authorized"),
    Probe("void a captured charge", "POST", "/charges/{id}/void", "captured"),
    Probe(
        "list charges after A's charge",
        "GET",
        "/charges",
        "authorized",
        params={"starting_after": "{id}"},
        not_found=False,
    ),
    Probe("open dispute", "POST", "/test_helpers/charges/{id}/dispute", "captured"),
    Probe("close dispute", "POST", "/test_helpers/disputes/{id}/close", "dispute", json={"outcome": "won"}),
    Probe(
        "close dispute, bad outcome",
        "POST",
        "/test_helpers/disputes/{id}/close",
        "dispute",
        json={"outcome": "maybe"},
    ),
    Probe("retrieve endpoint", "GET", "/webhooks/{id}", "endpoint"),
    Probe("update endpoint", "PATCH", "/webhooks/{id}", "endpoint", json={"description": "hijacked"}),
    Probe("disable endpoint", "PATCH", "/webhooks/{id}", "endpoint", json={"status": "disabled"}),
    Probe("delete endpoint", "DELETE", "/webhooks/{id}", "endpoint"),
    Probe("list deliveries", "GET", "/webhooks/{id}/deliveries", "endpoint"),
    Probe(
        "own deliveries after A's delivery",
        "GET",
        "/webhooks/{own_endpoint}/deliveries",
        "delivery",
        params={"starting_after": "{id}"},
        not_found=False,
    ),
    Probe("retrieve event", "GET", "/events/{id}", "event"),
    Probe("resend event", "POST", "/events/{id}/resend", "event"),
    Probe(
        "list events after A's event",
        "GET",
        "/events",
        "event",
        params={"starting_after": "{id}"},
        not_found=False,
    ),
    Probe("revoke key", "DELETE", "/keys/{id}", "key", credential="jwt"),
    Probe("retrieve customer", "GET", "/customers/{id}", "customer"),
    Probe("update customer", "PATCH", "/customers/{id}", "customer", json={"name": "hijacked"}),
    Probe("list payment methods", "GET", "/customers/{id}/payment-methods", "customer"),
    Probe("attach payment method", "POST", "/customers/{id}/payment-methods", "customer", json=VAULT_CARD),
    Probe("list customer balance transactions", "GET", "/customers/{id}/balance-transactions", "customer"),
    Probe(
        "adjust a customer's credit",
        "POST",
        "/customers/{id}/balance-transactions",
        "customer",
        json={"amount_cents": 500, "currency": "usd"},
    ),
    Probe(
        "portal session for A's customer",
        "POST",
        "/portal-sessions",
        "customer",
        json={"customer_id": "{id}", "return_url": "https://shop.example/account"},
    ),
    Probe(
        "list customers after A's customer",
        "GET",
        "/customers",
        "customer",
        params={"starting_after": "{id}"},
        not_found=False,
    ),
    Probe("retrieve plan", "GET", "/plans/{id}", "plan"),
    Probe("list a plan's prices", "GET", "/plans/{id}/prices", "plan"),
    Probe("add a price to a plan", "POST", "/plans/{id}/prices", "plan", json=NEW_PRICE),
    Probe(
        "list plans after A's plan",
        "GET",
        "/plans",
        "plan",
        params={"starting_after": "{id}"},
        not_found=False,
    ),
    Probe("retrieve price", "GET", "/prices/{id}", "price"),
    Probe("archive price", "PATCH", "/prices/{id}", "price", json={"active": False}),
    Probe("retrieve tax rate", "GET", "/tax-rates/{id}", "tax_rate"),
    Probe("update tax rate", "PATCH", "/tax-rates/{id}", "tax_rate", json={"display_name": "hijacked"}),
    Probe(
        "list tax rates after A's rate",
        "GET",
        "/tax-rates",
        "tax_rate",
        params={"starting_after": "{id}"},
        not_found=False,
    ),
    Probe("retrieve subscription", "GET", "/subscriptions/{id}", "subscription"),
    Probe(
        "update subscription", "PATCH", "/subscriptions/{id}", "subscription", json={"metadata": {"x": "y"}}
    ),
    Probe("cancel subscription", "POST", "/subscriptions/{id}/cancel", "subscription"),
    Probe("pause subscription", "POST", "/subscriptions/{id}/pause", "subscription"),
    Probe("resume subscription", "POST", "/subscriptions/{id}/resume", "subscription"),
    Probe(
        "preview a change",
        "POST",
        "/subscriptions/{id}/preview",
        "subscription",
        json={"add_item": {"priceId": UNKNOWN_PRICE, "quantity": 1}},
    ),
    Probe("list items", "GET", "/subscriptions/{id}/items", "subscription"),
    Probe(
        "add an item",
        "POST",
        "/subscriptions/{id}/items",
        "subscription",
        json={"priceId": UNKNOWN_PRICE, "quantity": 1},
    ),
    Probe(
        "change an item", "PATCH", "/subscriptions/{subscription}/items/{id}", "item", json={"quantity": 2}
    ),
    Probe("remove an item", "DELETE", "/subscriptions/{subscription}/items/{id}", "item"),
    Probe(
        "list subscriptions after A's",
        "GET",
        "/subscriptions",
        "subscription",
        params={"starting_after": "{id}"},
        not_found=False,
    ),
    Probe(
        "list subscriptions of A's customer",
        "GET",
        "/subscriptions",
        "customer",
        params={"customer_id": "{id}"},
        not_found=False,
    ),
    Probe("retrieve invoice", "GET", "/invoices/{id}", "invoice"),
    Probe(
        "list invoices after A's",
        "GET",
        "/invoices",
        "invoice",
        params={"starting_after": "{id}"},
        not_found=False,
    ),
)


@dataclass
class World:
    """Merchant A's objects (test environment unless named live), and the intruders."""

    owner: Merchant
    owner_live: dict[str, str]
    intruder: Merchant
    intruder_endpoint: str
    owner_live_endpoint: str
    objects: dict[str, str]
    endpoint_description: str = "A's orders"


@pytest.fixture(scope="module")
def http(gateway_process: RunningProcess) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=gateway_process.base_url, timeout=15.0) as client:
        yield client


@pytest.fixture(scope="module")
def receiver() -> Iterator[WebhookReceiver]:
    with start_receiver() as running:
        yield running


def _live_key(http: httpx.Client, merchant: Merchant) -> dict[str, str]:
    created = http.post(f"{API}/keys", json={"name": "live", "environment": "live"}, headers=merchant.jwt)
    assert created.status_code == 201, created.text
    return {"Authorization": f"Bearer {created.json()['secret_key']}"}


def _endpoint(
    http: httpx.Client,
    auth: dict[str, str],
    url: str,
    description: str = "",
    events: tuple[str, ...] = ("*",),
) -> str:
    created = http.post(
        f"{API}/webhooks", json={"url": url, "events": list(events), "description": description}, headers=auth
    )
    assert created.status_code == 201, created.text
    return str(created.json()["id"])


@pytest.fixture(scope="module")
def world(http: httpx.Client, receiver: WebhookReceiver) -> World:
    owner, intruder = sign_up(http), sign_up(http)
    endpoint = _endpoint(http, owner.auth, receiver.url("/owner"), "A's orders")
    authorized = authorized_charge(http, owner)
    captured = authorized_charge(http, owner)
    assert http.post(f"{API}/charges/{captured['id']}/capture", headers=owner.auth).status_code == 200
    disputed = authorized_charge(http, owner)
    assert http.post(f"{API}/charges/{disputed['id']}/capture", headers=owner.auth).status_code == 200
    dispute = http.post(f"{HELPERS}/charges/{disputed['id']}/dispute", headers=owner.auth)
    assert dispute.status_code == 201, dispute.text
    receiver.wait_for_sync(1, "/owner")
    deliveries = http.get(f"{API}/webhooks/{endpoint}/deliveries", headers=owner.auth).json()["data"]
    events = http.get(f"{API}/events", headers=owner.auth).json()["data"]
    assert deliveries and events
    customer = http.post(
        f"{API}/customers", json={"email": "a@a.example", "name": "A's customer"}, headers=owner.auth
    )
    assert customer.status_code == 201, customer.text
    method = http.post(
        f"{API}/customers/{customer.json()['id']}/payment-methods", json=VAULT_CARD, headers=owner.auth
    )
    assert method.status_code == 201, method.text
    plan = http.post(f"{API}/plans", json={"name": "A's plan"}, headers=owner.auth)
    assert plan.status_code == 201, plan.text
    price = http.post(f"{API}/plans/{plan.json()['id']}/prices", json=NEW_PRICE, headers=owner.auth)
    assert price.status_code == 201, price.text
    subscription = http.post(
        f"{API}/subscriptions",
        json={"customer_id": customer.json()["id"], "price_id": price.json()["id"]},
        headers=owner.auth,
    )
    assert subscription.status_code == 201, subscription.text
    assert subscription.json()["status"] == "ACTIVE", subscription.text
    item = http.post(
        f"{API}/subscriptions/{subscription.json()['id']}/items",
        json={"priceId": price.json()["id"], "quantity": 2, "prorationBehavior": "none"},
        headers=owner.auth,
    )
    assert item.status_code == 201, item.text
    rate = {"percentage": "8.25", "display_name": "Sales tax", "inclusive": False, "country": "US"}
    tax_rate = http.post(f"{API}/tax-rates", json=rate, headers=owner.auth)
    assert tax_rate.status_code == 201, tax_rate.text
    owner_live = _live_key(http, owner)
    live = http.post(
        f"{API}/charges",
        json={"amount": 500, "currency": "usd", "return_url": "https://a.example/ok"},
        headers=owner_live,
    )
    assert live.status_code == 201, live.text
    _SUBSCRIPTION["id"] = subscription.json()["id"]
    return World(
        owner=owner,
        owner_live=owner_live,
        intruder=intruder,
        intruder_endpoint=_endpoint(http, intruder.auth, receiver.url("/intruder")),
        # LIVE needs https to a public address; an IP literal needs no DNS, and the one event type it
        # takes never happens in live mode, so nothing is ever sent there.
        owner_live_endpoint=_endpoint(
            http, owner_live, "https://93.184.215.14/hook", events=("charge.disputed",)
        ),
        objects={
            "authorized": authorized["id"],
            "captured": captured["id"],
            "dispute": dispute.json()["id"],
            "disputed": disputed["id"],
            "endpoint": endpoint,
            "delivery": deliveries[0]["id"],
            "event": events[0]["id"],
            "key": owner.key_id,
            "live_charge": live.json()["id"],
            "customer": customer.json()["id"],
            "payment_method": method.json()["id"],
            "plan": plan.json()["id"],
            "price": price.json()["id"],
            "tax_rate": tax_rate.json()["id"],
            "subscription": subscription.json()["id"],
            "item": item.json()["id"],
            "invoice": subscription.json()["latest_invoice"],
        },
    )


_SUBSCRIPTION: dict[str, str] = {}
"""A's subscription, which item paths name beside the item (set by the `world` fixture)."""


def _send(
    http: httpx.Client, probe: Probe, headers: dict[str, str], object_id: str, own_endpoint: str
) -> httpx.Response:
    def fill(text: str) -> str:
        text = text.replace("{subscription}", _SUBSCRIPTION.get("id", ""))
        return text.replace("{id}", object_id).replace("{own_endpoint}", own_endpoint)

    params = {name: fill(value) for name, value in probe.params.items()}
    body = (
        {k: fill(v) if isinstance(v, str) else v for k, v in probe.json.items()} if probe.json else probe.json
    )
    return call(http, probe.method, API + fill(probe.path), json=body, params=params, headers=headers)


def _assert_indistinguishable(
    http: httpx.Client, probe: Probe, headers: dict[str, str], object_id: str, own_endpoint: str
) -> None:
    """The answer for the foreign object equals the answer for an id of the same shape nobody holds."""
    unknown_id = same_shape(object_id)
    foreign = _send(http, probe, headers, object_id, own_endpoint)
    unknown = _send(http, probe, headers, unknown_id, own_endpoint)
    if probe.not_found:
        assert_error(foreign, 404, "resource_not_found")
    assert id_blind(foreign, object_id) == id_blind(unknown, unknown_id), (
        probe.name,
        foreign.text,
        unknown.text,
    )


@pytest.mark.parametrize("probe", PROBES, ids=lambda p: p.name)
def test_another_merchant_sees_404_like_an_unknown_id(http: httpx.Client, world: World, probe: Probe) -> None:
    headers = world.intruder.jwt if probe.credential == "jwt" else world.intruder.auth
    _assert_indistinguishable(http, probe, headers, world.objects[probe.target], world.intruder_endpoint)


@pytest.mark.parametrize("probe", [p for p in PROBES if p.credential == "secret_key"], ids=lambda p: p.name)
def test_the_live_key_sees_404_for_test_objects_of_the_same_merchant(
    http: httpx.Client, world: World, probe: Probe
) -> None:
    if probe.path.startswith("/test_helpers"):
        # Test helpers refuse live keys before looking anything up (403 test_key_required, id-blind).
        foreign = _send(http, probe, world.owner_live, world.objects[probe.target], "")
        assert_error(foreign, 403, "authorization_error", "test_key_required")
        return
    object_id = world.objects[probe.target]
    _assert_indistinguishable(http, probe, world.owner_live, object_id, world.owner_live_endpoint)


@pytest.mark.parametrize("probe", [p for p in PROBES if p.target == "authorized"], ids=lambda p: p.name)
def test_the_test_key_sees_404_for_live_objects_of_the_same_merchant(
    http: httpx.Client, world: World, probe: Probe
) -> None:
    _assert_indistinguishable(http, probe, world.owner.auth, world.objects["live_charge"], "")


def test_lists_show_only_the_callers_merchant_and_environment(http: httpx.Client, world: World) -> None:
    test_objects = set(world.objects.values()) - {world.objects["live_charge"]}
    for headers in (world.intruder.auth, world.owner_live):
        for path in (
            "/charges?limit=100",
            "/events?limit=100",
            "/webhooks",
            "/customers?limit=100",
            "/subscriptions?limit=100",
            "/invoices?limit=100",
        ):
            listed = call(http, "GET", API + path, headers=headers)
            assert listed.status_code == 200, listed.text
            assert not test_objects & {item["id"] for item in listed.json()["data"]}, path
    keys = call(http, "GET", f"{API}/keys", headers=world.intruder.jwt).json()["data"]
    assert world.owner.key_id not in {key["id"] for key in keys}
    live_charges = call(http, "GET", f"{API}/charges", headers=world.owner_live).json()["data"]
    assert [c["id"] for c in live_charges] == [world.objects["live_charge"]]
    test_charges = call(http, "GET", f"{API}/charges?limit=100", headers=world.owner.auth).json()["data"]
    assert world.objects["live_charge"] not in {c["id"] for c in test_charges}


def test_an_idempotency_key_is_never_shared_between_merchants(http: httpx.Client, world: World) -> None:
    """B reusing A's Idempotency-Key with the same body gets its own fresh charge, never A's answer."""
    body = {"amount": 1234, "currency": "usd", "return_url": "https://shop.example/ok"}
    headers = {"Idempotency-Key": "shared-order-1"}
    first = call(http, "POST", f"{API}/charges", json=body, headers={**world.owner.auth, **headers})
    second = call(http, "POST", f"{API}/charges", json=body, headers={**world.intruder.auth, **headers})
    assert (first.status_code, second.status_code) == (201, 201), second.text
    assert "Idempotent-Replayed" not in second.headers
    assert first.json()["id"] != second.json()["id"]
    live = call(http, "POST", f"{API}/charges", json=body, headers={**world.owner_live, **headers})
    assert live.status_code == 201 and live.json()["id"] != first.json()["id"] and live.json()["livemode"]


def test_the_owners_objects_are_untouched_afterwards(http: httpx.Client, world: World) -> None:
    """Runs after the probes (file order): none of them changed anything of A's."""
    owner = world.owner.auth
    objects = world.objects
    assert (
        call(http, "GET", f"{API}/charges/{objects['authorized']}", headers=owner).json()["status"]
        == "authorized"
    )
    captured = call(http, "GET", f"{API}/charges/{objects['captured']}", headers=owner).json()
    assert (captured["status"], captured["amount_refunded"]) == ("captured", 0)
    endpoint = call(http, "GET", f"{API}/webhooks/{objects['endpoint']}", headers=owner).json()
    assert (endpoint["status"], endpoint["description"]) == ("enabled", world.endpoint_description)
    keys = call(http, "GET", f"{API}/keys", headers=world.owner.jwt).json()["data"]
    assert next(k for k in keys if k["id"] == world.owner.key_id)["revoked"] is False
    disputed = call(http, "GET", f"{API}/charges/{objects['disputed']}", headers=owner).json()
    assert (disputed["status"], disputed["dispute"]["status"]) == ("disputed", "needs_response")
    events = call(http, "GET", f"{API}/events/{objects['event']}", headers=owner)
    assert events.status_code == 200
    customer = call(http, "GET", f"{API}/customers/{objects['customer']}", headers=owner).json()
    assert (customer["name"], customer["default_payment_method"]) == (
        "A's customer",
        objects["payment_method"],
    )
    methods = call(
        http, "GET", f"{API}/customers/{objects['customer']}/payment-methods", headers=owner
    ).json()
    assert [m["id"] for m in methods["data"]] == [objects["payment_method"]]
    subscription = call(http, "GET", f"{API}/subscriptions/{objects['subscription']}", headers=owner).json()
    assert (subscription["status"], subscription["metadata"], subscription["cancel_at_period_end"]) == (
        "ACTIVE",
        {},
        False,
    )
    assert [(i["id"], i["quantity"], i["status"]) for i in subscription["items"][1:]] == [
        (objects["item"], 2, "active")
    ]
