"""Dunning through the real gateway and core (DESIGN §9, spec: Dunning schedule): a declined first charge
leaves the subscription PAST_DUE; after the last retry it is UNPAID, and a new default card still pays
what it owes. The timing conventions (weekly prices) are those of test_subscription_lifecycle_api.py; the
whole schedule over months is test_billing_year_api.py's subject.
"""

from __future__ import annotations

import httpx
import pytest

from tests.e2e.api_client import API, sign_up
from tests.e2e.subscription_api_helpers import (
    DAY,
    DUNNING_CARD,
    OK_CARD,
    advance_to,
    charge,
    customer,
    events_of,
    get_sub,
    invoice,
    invoice_charges,
    invoices,
    ok,
    price,
    subscribe,
)

pytestmark = pytest.mark.e2e


def test_the_dunning_card_leaves_the_first_invoice_open_and_the_subscription_past_due(
    http: httpx.Client,
) -> None:
    merchant = sign_up(http)
    sub = subscribe(http, merchant, customer(http, merchant, card=DUNNING_CARD), price(http, merchant, 3000))
    assert sub["status"] == "PAST_DUE"
    owed = invoice(http, merchant, sub["latest_invoice"])
    assert owed["status"] == "OPEN" and owed["attempt_count"] == 1 and owed["paid_at"] is None
    assert owed["total_cents"] == 3000 and owed["billing_reason"] == "subscription_create"
    # DESIGN §9: the first retry is 3 days after the first failure, which is the invoice's creation
    # (give or take the second the charge attempt took).
    assert 0 <= owed["next_attempt_at"] - (owed["created"] + 3 * DAY) <= 2
    failed = charge(http, merchant, owed["charge"])
    assert failed["status"] == "failed" and failed["invoice"] == owed["id"] and failed["amount"] == 3000
    assert [c["id"] for c in invoice_charges(http, merchant)] == [failed["id"]]
    [event] = events_of(http, merchant, "invoice.payment_failed")
    assert event["data"]["object"] == owed
    assert events_of(http, merchant, "invoice.paid") == []


def test_a_new_default_card_pays_what_an_unpaid_subscription_owes_and_bills_the_week_in_progress(
    http: httpx.Client,
) -> None:
    merchant = sign_up(http)
    cus = customer(http, merchant, card=DUNNING_CARD)
    sub = subscribe(http, merchant, cus, price(http, merchant, 3000))
    created, owed_id = sub["created"], sub["latest_invoice"]
    first_failure = invoice(http, merchant, owed_id)["next_attempt_at"] - 3 * DAY
    for day in (3, 8, 15):  # the run's three retries fail: UNCOLLECTIBLE and UNPAID (DESIGN §9)
        advance_to(http, merchant, first_failure + day * DAY + 1)
    owed = invoice(http, merchant, owed_id)
    assert (owed["status"], owed["attempt_count"], owed["next_attempt_at"]) == ("UNCOLLECTIBLE", 4, None)
    assert get_sub(http, merchant, sub["id"])["status"] == "UNPAID"
    # PAST_DUE weeks were still invoiced on time (DESIGN §10.4): week 2 at day 7 (failed, retried at day
    # 10) and week 3 at day 14 (failed); at day 15 the first invoice ran out of retries: UNPAID.
    [week3_inv, week2_inv, _] = invoices(http, merchant, subscription_id=sub["id"])
    assert (week2_inv["period_start"], week3_inv["period_start"]) == (created + 7 * DAY, created + 14 * DAY)
    assert (week2_inv["status"], week2_inv["attempt_count"]) == ("OPEN", 2)
    assert (week3_inv["status"], week3_inv["attempt_count"]) == ("OPEN", 1)
    assert len(events_of(http, merchant, "invoice.payment_failed")) == 7

    def set_default_card(number: str) -> None:
        card = {"number": number, "exp_month": 12, "exp_year": 2099, "cvc": "123"}
        body = {"type": "card", "card": card, "set_default": True}
        ok(http.post(f"{API}/customers/{cus}/payment-methods", json=body, headers=merchant.auth), 201)

    # Another card that declines: one more attempt of everything owed; the first invoice still
    # UNCOLLECTIBLE with no new schedule, still UNPAID.
    set_default_card(DUNNING_CARD)
    declined = invoice(http, merchant, owed_id)
    assert (declined["status"], declined["attempt_count"], declined["next_attempt_at"]) == (
        "UNCOLLECTIBLE",
        5,
        None,
    )
    assert charge(http, merchant, declined["charge"])["status"] == "failed"
    assert get_sub(http, merchant, sub["id"])["status"] == "UNPAID"
    assert len(events_of(http, merchant, "invoice.payment_failed")) == 10  # 7 + the three owed invoices

    # A good card pays all three at once: ACTIVE again, in week 3 (days 14–21), invoiced already.
    set_default_card(OK_CARD)
    paid = invoice(http, merchant, owed_id)
    assert (paid["status"], paid["attempt_count"]) == ("PAID", 6)
    assert charge(http, merchant, paid["charge"])["status"] == "captured"
    recovered = get_sub(http, merchant, sub["id"])
    assert recovered["status"] == "ACTIVE"
    week3 = (created + 14 * DAY, created + 21 * DAY)
    assert (recovered["current_period_start"], recovered["current_period_end"]) == week3
    billed = invoice(http, merchant, recovered["latest_invoice"])
    assert billed["status"] == "PAID" and billed["total_cents"] == 3000
    assert (billed["period_start"], billed["period_end"]) == week3
    assert billed["id"] == week3_inv["id"]
    assert len(invoices(http, merchant, subscription_id=sub["id"])) == 3
    paid_events = events_of(http, merchant, "invoice.paid")
    assert sorted(e["data"]["object"]["id"] for e in paid_events) == sorted(
        [owed_id, week2_inv["id"], week3_inv["id"]]
    )
