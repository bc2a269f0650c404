"""A year of monthly billing through the gateway and the sandbox clock only (DESIGN §9, issue 15): every
invoice of five subscriptions of one merchant compared with a table computed by hand.

The merchant's clock starts at 2027-01-31 00:00:00 UTC (a month end, so the anchored periods show the
clamping Jan 31 → Feb 28 → Mar 31 → Apr 30) and ends 365 days later, 2028-01-31 00:00:00. Each move is
made at an exact second: the clock is first advanced to a minute before (which runs every billing step
due by then, however long that takes) and then to the second itself (nothing is due in that minute, so
the advance answers at once and the move lands within the same second; the test checks that it did).

    trial      2000/month, 14-day trial, customer in US/NY → the NY 8.875 % inclusive rate (auto-detected)
    addons     3000/month, explicit 8.25 % exclusive rate; a 500 add-on ×2 added mid-cycle (deferred),
               raised to ×3 mid-cycle (deferred), removed mid-cycle immediately (a credit)
    recovers   2000/month, the dunning card: days 0, 3 and 8 fail, a good card attached on day 8 pays
    never      2000/month, the dunning card all along: days 0, 3, 8, 15 fail → UNCOLLECTIBLE, UNPAID,
               CANCELED (payment_failed) 30 days later (day 45)
    paused     2000/month, paused on Apr 15 12:00, resumed on Jun 15 12:00 (a new anchored period)

Rules used by hand (DESIGN §9): periods anchored, month ends clamped; proration = round_half_up(unit ×
|Δq| × seconds_remaining / seconds_total); exclusive tax = round_half_up(subtotal × p / 100), inclusive
tax = total − round_half_up(total / (1 + p / 100)); the merchant's credit for a paid invoice: fee =
round_half_up(total × 0.029 + 30), net = max(0, total − fee − tax), checked in `invoice_credits`.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any, NamedTuple

import httpx
import psycopg
import pytest

from tests.e2e.api_client import API, sign_up
from tests.support.processes import RunningProcess
from tests.support.sandbox_clock import t
from tests.support.subscription_shop import OK_CARD, Sandbox, ok

pytestmark = pytest.mark.e2e

JSON = dict[str, Any]
CLOCK = f"{API}/test_helpers/clock"
DAY = 86_400
DUNNING_CARD = "4000000000000341"  # attaches fine, every later charge declines (DESIGN §9)
DRIFT = 5
"""Seconds a charge attempt may land after the instant it was due (requests take time)."""


# -- the hand-computed table ----------------------------------------------------------------------------


class Pr(NamedTuple):
    """A proration line's inputs: seconds_remaining, seconds_total, unit_amount_cents, quantity_delta."""

    remaining: int
    total: int
    unit: int
    delta: int
    unrounded: str


class Line(NamedTuple):
    kind: str
    amount: int
    quantity: int
    proration: Pr | None = None


class Inv(NamedTuple):
    reason: str
    start: str
    end: str
    status: str
    lines: tuple[Line, ...]
    subtotal: int
    tax: int
    total: int
    attempts: int
    fee: int | None
    """fee and net of the merchant's credit (PAID only): the invoice does not show them."""
    net: int | None


START = "2027-01-31 00:00"
END = "2028-01-31 00:00"  # START + 365 days
CREATED = {
    "trial": "2027-01-31 00:00",
    "addons": "2027-01-31 00:01",
    "recovers": "2027-01-31 00:02",
    "never": "2027-01-31 00:03",
    "paused": "2027-01-31 00:04",
}
ADD_ITEM_AT = "2027-03-16 00:01"  # addons: 15 days before its period end Mar 31 00:01
PAUSE_AT = "2027-04-15 12:00"  # paused
RAISE_AT = "2027-05-10 00:01"  # addons: 21 days before its period end May 31 00:01
RESUME_AT = "2027-06-15 12:00"  # paused
REMOVE_AT = "2027-08-20 12:01"  # addons: 10.5 days before its period end Aug 31 00:01

# fmt: off
CREATE, CYCLE, RESUME = "subscription_create", "subscription_cycle", "subscription_resume"

# trial — 2000 inclusive of NY's 8.875 %: tax = 2000 − round_half_up(2000 / 1.08875 = 1836.96…) = 2000 − 1837
# = 163; total 2000. fee = round_half_up(2000 × 0.029 + 30 = 88) = 88; net = 2000 − 88 − 163 = 1749.
# The 14-day trial (Jan 31 → Feb 14, nothing billed) ends at Feb 14 00:00, which anchors the periods.
TRIAL_MONTH = (Line("subscription", 2000, 1),)
TRIAL = [
    Inv(CYCLE, "2027-02-14 00:00", "2027-03-14 00:00", "PAID", TRIAL_MONTH, 2000, 163, 2000, 1, 88, 1749),
    Inv(CYCLE, "2027-03-14 00:00", "2027-04-14 00:00", "PAID", TRIAL_MONTH, 2000, 163, 2000, 1, 88, 1749),
    Inv(CYCLE, "2027-04-14 00:00", "2027-05-14 00:00", "PAID", TRIAL_MONTH, 2000, 163, 2000, 1, 88, 1749),
    Inv(CYCLE, "2027-05-14 00:00", "2027-06-14 00:00", "PAID", TRIAL_MONTH, 2000, 163, 2000, 1, 88, 1749),
    Inv(CYCLE, "2027-06-14 00:00", "2027-07-14 00:00", "PAID", TRIAL_MONTH, 2000, 163, 2000, 1, 88, 1749),
    Inv(CYCLE, "2027-07-14 00:00", "2027-08-14 00:00", "PAID", TRIAL_MONTH, 2000, 163, 2000, 1, 88, 1749),
    Inv(CYCLE, "2027-08-14 00:00", "2027-09-14 00:00", "PAID", TRIAL_MONTH, 2000, 163, 2000, 1, 88, 1749),
    Inv(CYCLE, "2027-09-14 00:00", "2027-10-14 00:00", "PAID", TRIAL_MONTH, 2000, 163, 2000, 1, 88, 1749),
    Inv(CYCLE, "2027-10-14 00:00", "2027-11-14 00:00", "PAID", TRIAL_MONTH, 2000, 163, 2000, 1, 88, 1749),
    Inv(CYCLE, "2027-11-14 00:00", "2027-12-14 00:00", "PAID", TRIAL_MONTH, 2000, 163, 2000, 1, 88, 1749),
    Inv(CYCLE, "2027-12-14 00:00", "2028-01-14 00:00", "PAID", TRIAL_MONTH, 2000, 163, 2000, 1, 88, 1749),
    # The period starting 2028-01-14 is billed on Jan 14, before the year ends (Jan 31).
    Inv(CYCLE, "2028-01-14 00:00", "2028-02-14 00:00", "PAID", TRIAL_MONTH, 2000, 163, 2000, 1, 88, 1749),
]

# addons — 3000 plus 8.25 % on top: tax = round_half_up(3000 × 0.0825 = 247.5) = 248, total 3248;
# fee = round_half_up(3248 × 0.029 + 30 = 124.192) = 124; net = 3248 − 124 − 248 = 2876.
BASE_ONLY = (Line("subscription", 3000, 1),)
# Mar 16 00:01, 2 × 500 added (defer_to_next_cycle) in the 31-day period Feb 28 → Mar 31 00:01:
# 15 days = 1 296 000 s of 2 678 400 s left: 500 × 2 × 1 296 000 / 2 678 400 = 483.870967… → 484.
ADDED = Line("past_due_proration", 484, 2, Pr(1_296_000, 2_678_400, 500, 2, "483.870968"))
# May 10 00:01, quantity 2 → 3 in the 31-day period Apr 30 → May 31 00:01: 21 days = 1 814 400 s left:
# 500 × 1 × 1 814 400 / 2 678 400 = 338.709677… → 339.
RAISED = Line("past_due_proration", 339, 1, Pr(1_814_400, 2_678_400, 500, 1, "338.709677"))
# Aug 20 12:01, the ×3 item removed now in the 31-day period Jul 31 → Aug 31 00:01: 10.5 days =
# 907 200 s left: −(500 × 3 × 907 200 / 2 678 400 = 508.064516…) → −508, a credit on the next invoice.
REMOVED = Line("credit", -508, 3, Pr(907_200, 2_678_400, 500, -3, "-508.064516"))
BASE = Line("subscription", 3000, 1)
ADDONS = [
    Inv(CREATE, "2027-01-31 00:01", "2027-02-28 00:01", "PAID", BASE_ONLY, 3000, 248, 3248, 1, 124, 2876),
    Inv(CYCLE, "2027-02-28 00:01", "2027-03-31 00:01", "PAID", BASE_ONLY, 3000, 248, 3248, 1, 124, 2876),
    # 3000 + 2 × 500 + 484 = 4484; tax round_half_up(369.93) = 370; total 4854;
    # fee round_half_up(4854 × 0.029 + 30 = 170.766) = 171; net 4854 − 171 − 370 = 4313.
    Inv(CYCLE, "2027-03-31 00:01", "2027-04-30 00:01", "PAID",
        (BASE, Line("addon", 1000, 2), ADDED), 4484, 370, 4854, 1, 171, 4313),
    # 3000 + 2 × 500 = 4000; tax 330 exactly; total 4330; fee round_half_up(155.57) = 156; net 3844.
    Inv(CYCLE, "2027-04-30 00:01", "2027-05-31 00:01", "PAID",
        (BASE, Line("addon", 1000, 2)), 4000, 330, 4330, 1, 156, 3844),
    # 3000 + 3 × 500 + 339 = 4839; tax round_half_up(399.2175) = 399; total 5238;
    # fee round_half_up(5238 × 0.029 + 30 = 181.902) = 182; net 5238 − 182 − 399 = 4657.
    Inv(CYCLE, "2027-05-31 00:01", "2027-06-30 00:01", "PAID",
        (BASE, Line("addon", 1500, 3), RAISED), 4839, 399, 5238, 1, 182, 4657),
    # 3000 + 1500 = 4500; tax round_half_up(371.25) = 371; total 4871;
    # fee round_half_up(4871 × 0.029 + 30 = 171.259) = 171; net 4871 − 171 − 371 = 4329.
    Inv(CYCLE, "2027-06-30 00:01", "2027-07-31 00:01", "PAID",
        (BASE, Line("addon", 1500, 3)), 4500, 371, 4871, 1, 171, 4329),
    Inv(CYCLE, "2027-07-31 00:01", "2027-08-31 00:01", "PAID",
        (BASE, Line("addon", 1500, 3)), 4500, 371, 4871, 1, 171, 4329),
    # The item is gone, its credit stays: 3000 − 508 = 2492; tax round_half_up(205.59) = 206; total 2698;
    # fee round_half_up(2698 × 0.029 + 30 = 108.242) = 108; net 2698 − 108 − 206 = 2384.
    Inv(CYCLE, "2027-08-31 00:01", "2027-09-30 00:01", "PAID",
        (BASE, REMOVED), 2492, 206, 2698, 1, 108, 2384),
    Inv(CYCLE, "2027-09-30 00:01", "2027-10-31 00:01", "PAID", BASE_ONLY, 3000, 248, 3248, 1, 124, 2876),
    Inv(CYCLE, "2027-10-31 00:01", "2027-11-30 00:01", "PAID", BASE_ONLY, 3000, 248, 3248, 1, 124, 2876),
    Inv(CYCLE, "2027-11-30 00:01", "2027-12-31 00:01", "PAID", BASE_ONLY, 3000, 248, 3248, 1, 124, 2876),
    # The next period starts 2028-01-31 00:01, one minute after the year ends: not billed.
    Inv(CYCLE, "2027-12-31 00:01", "2028-01-31 00:01", "PAID", BASE_ONLY, 3000, 248, 3248, 1, 124, 2876),
]

# recovers / never / paused — 2000, no tax rate (no address): fee 88, net 2000 − 88 = 1912.
MONTH = (Line("subscription", 2000, 1),)
RECOVERS = [
    # Attempts: day 0 (create) fails, day 3 and day 8 (the run's retries) fail, then the good card
    # attached on day 8 as the default retries at once and pays: 4 attempts.
    Inv(CREATE, "2027-01-31 00:02", "2027-02-28 00:02", "PAID", MONTH, 2000, 0, 2000, 4, 88, 1912),
    Inv(CYCLE, "2027-02-28 00:02", "2027-03-31 00:02", "PAID", MONTH, 2000, 0, 2000, 1, 88, 1912),
    Inv(CYCLE, "2027-03-31 00:02", "2027-04-30 00:02", "PAID", MONTH, 2000, 0, 2000, 1, 88, 1912),
    Inv(CYCLE, "2027-04-30 00:02", "2027-05-31 00:02", "PAID", MONTH, 2000, 0, 2000, 1, 88, 1912),
    Inv(CYCLE, "2027-05-31 00:02", "2027-06-30 00:02", "PAID", MONTH, 2000, 0, 2000, 1, 88, 1912),
    Inv(CYCLE, "2027-06-30 00:02", "2027-07-31 00:02", "PAID", MONTH, 2000, 0, 2000, 1, 88, 1912),
    Inv(CYCLE, "2027-07-31 00:02", "2027-08-31 00:02", "PAID", MONTH, 2000, 0, 2000, 1, 88, 1912),
    Inv(CYCLE, "2027-08-31 00:02", "2027-09-30 00:02", "PAID", MONTH, 2000, 0, 2000, 1, 88, 1912),
    Inv(CYCLE, "2027-09-30 00:02", "2027-10-31 00:02", "PAID", MONTH, 2000, 0, 2000, 1, 88, 1912),
    Inv(CYCLE, "2027-10-31 00:02", "2027-11-30 00:02", "PAID", MONTH, 2000, 0, 2000, 1, 88, 1912),
    Inv(CYCLE, "2027-11-30 00:02", "2027-12-31 00:02", "PAID", MONTH, 2000, 0, 2000, 1, 88, 1912),
    Inv(CYCLE, "2027-12-31 00:02", "2028-01-31 00:02", "PAID", MONTH, 2000, 0, 2000, 1, 88, 1912),
]
NEVER = [
    # Days 0, 3, 8, 15 fail: 4 attempts, then UNCOLLECTIBLE (no credit). A PAST_DUE or UNPAID
    # subscription is not billed at its period end (Feb 28), so this is its only invoice.
    Inv(CREATE, "2027-01-31 00:03", "2027-02-28 00:03", "UNCOLLECTIBLE", MONTH, 2000, 0, 2000, 4, None, None),
]
PAUSED = [
    Inv(CREATE, "2027-01-31 00:04", "2027-02-28 00:04", "PAID", MONTH, 2000, 0, 2000, 1, 88, 1912),
    Inv(CYCLE, "2027-02-28 00:04", "2027-03-31 00:04", "PAID", MONTH, 2000, 0, 2000, 1, 88, 1912),
    # Paused on Apr 15 12:00 in this period: nothing more until the resume (no credit for the pause).
    Inv(CYCLE, "2027-03-31 00:04", "2027-04-30 00:04", "PAID", MONTH, 2000, 0, 2000, 1, 88, 1912),
    # Resumed Jun 15 12:00: a new period anchored there, invoiced at once; then monthly from the 15th.
    Inv(RESUME, "2027-06-15 12:00", "2027-07-15 12:00", "PAID", MONTH, 2000, 0, 2000, 1, 88, 1912),
    Inv(CYCLE, "2027-07-15 12:00", "2027-08-15 12:00", "PAID", MONTH, 2000, 0, 2000, 1, 88, 1912),
    Inv(CYCLE, "2027-08-15 12:00", "2027-09-15 12:00", "PAID", MONTH, 2000, 0, 2000, 1, 88, 1912),
    Inv(CYCLE, "2027-09-15 12:00", "2027-10-15 12:00", "PAID", MONTH, 2000, 0, 2000, 1, 88, 1912),
    Inv(CYCLE, "2027-10-15 12:00", "2027-11-15 12:00", "PAID", MONTH, 2000, 0, 2000, 1, 88, 1912),
    Inv(CYCLE, "2027-11-15 12:00", "2027-12-15 12:00", "PAID", MONTH, 2000, 0, 2000, 1, 88, 1912),
    Inv(CYCLE, "2027-12-15 12:00", "2028-01-15 12:00", "PAID", MONTH, 2000, 0, 2000, 1, 88, 1912),
    Inv(CYCLE, "2028-01-15 12:00", "2028-02-15 12:00", "PAID", MONTH, 2000, 0, 2000, 1, 88, 1912),
]
# fmt: on
EXPECTED = {"trial": TRIAL, "addons": ADDONS, "recovers": RECOVERS, "never": NEVER, "paused": PAUSED}
FINAL_STATUS = {
    "trial": "ACTIVE",
    "addons": "ACTIVE",
    "recovers": "ACTIVE",
    "never": "CANCELED",
    "paused": "ACTIVE",
}
PAID_EVENTS = {"trial": 12, "addons": 12, "recovers": 12, "never": 0, "paused": 11}
FAILED_EVENTS = {"trial": 0, "addons": 0, "recovers": 3, "never": 4, "paused": 0}


# -- helpers ------------------------------------------------------------------------------------------


@pytest.fixture
def client(unthrottled_gateway: RunningProcess) -> Iterator[httpx.Client]:
    """The session's core behind a gateway without the per-merchant rate limit (a year of reads)."""
    with httpx.Client(base_url=unthrottled_gateway.base_url, timeout=60.0) as http:
        yield http


def shown(invoice: JSON) -> Inv:
    """An invoice of the API in the table's terms (fee and net are looked up apart)."""

    def line(raw: JSON) -> Line:
        p = raw["proration"]
        proration = None
        if p is not None:
            keys = ("seconds_remaining", "seconds_total", "unit_amount_cents", "quantity_delta", "unrounded")
            proration = Pr(*(p[key] for key in keys))
        return Line(raw["kind"], raw["amount_cents"], raw["quantity"], proration)

    def day(unix: int) -> str:
        return datetime.fromtimestamp(unix, UTC).strftime("%Y-%m-%d %H:%M")

    assert invoice["period_start"] % 60 == 0 and invoice["period_end"] % 60 == 0, invoice
    return Inv(
        invoice["billing_reason"],
        day(invoice["period_start"]),
        day(invoice["period_end"]),
        invoice["status"],
        tuple(line(raw) for raw in invoice["lines"]),
        invoice["subtotal_cents"],
        invoice["tax_cents"],
        invoice["total_cents"],
        invoice["attempt_count"],
        None,
        None,
    )


def credits(stack_env: dict[str, str], invoice_ids: list[str]) -> dict[str, tuple[int, int, int, int]]:
    """invoice id → (total, fee, tax, net) of the merchant's credit for it."""
    query = (
        "SELECT invoice_id, total_cents, fee_cents, tax_cents, net_cents"
        " FROM invoice_credits WHERE invoice_id = ANY(%s)"
    )
    with psycopg.connect(stack_env["DATABASE_URL"]) as conn:
        rows = conn.execute(query, (invoice_ids,)).fetchall()
    return {row[0]: (row[1], row[2], row[3], row[4]) for row in rows}


# -- the year -----------------------------------------------------------------------------------------


def test_a_year_of_monthly_billing_matches_the_hand_computed_table(
    client: httpx.Client, stack_env: dict[str, str]
) -> None:
    box = Sandbox(client, sign_up(client))
    assert box.now() < t(START) - 60

    # Catalog and customers, made before the year starts (nothing bills until a subscription exists).
    trial_price = box.price(2000, trial_days=14)
    base_2000, base_3000, seat = box.price(2000), box.price(3000), box.price(500)
    exclusive = box.tax_rate("8.25", False, "US", "CA")
    inclusive = box.tax_rate("8.875", True, "US", "NY")
    new_york = {
        "line1": "1 Broadway",
        "city": "New York",
        "state": "NY",
        "postal_code": "10004",
        "country": "US",
    }
    customers = {
        "trial": box.customer(OK_CARD, address=new_york),
        "addons": box.customer(OK_CARD),
        "recovers": box.customer(DUNNING_CARD),
        "never": box.customer(DUNNING_CARD),
        "paused": box.customer(OK_CARD),
    }
    prices = {
        "trial": trial_price,
        "addons": base_3000,
        "recovers": base_2000,
        "never": base_2000,
        "paused": base_2000,
    }

    subs: dict[str, str] = {}
    for name, created in CREATED.items():
        box.at_exactly(t(created))
        body: JSON = {"customer_id": customers[name], "price_id": prices[name]}
        if name == "addons":
            body["tax_rate_id"] = exclusive
        sub = box.post("/subscriptions", body, 201)
        assert sub["created"] == t(created), f"{name} was created late: the table assumes {created}"
        subs[name] = sub["id"]
    assert box.subscription(subs["trial"])["status"] == "TRIALING"
    assert box.subscription(subs["recovers"])["status"] == "PAST_DUE"
    assert box.subscription(subs["never"])["status"] == "PAST_DUE"

    # recovers: the dunning retry of day 3 fails (attempt 2), the next one is due on day 8.
    owed_id = box.subscription(subs["recovers"])["latest_invoice"]
    first_failure = box.invoice(owed_id)["next_attempt_at"] - 3 * DAY
    assert 0 <= first_failure - t(CREATED["recovers"]) <= DRIFT
    box.advance(first_failure + 3 * DAY + DRIFT)
    owed = box.invoice(owed_id)
    assert (owed["status"], owed["attempt_count"]) == ("OPEN", 2)
    assert owed["next_attempt_at"] == first_failure + 8 * DAY
    assert box.get(f"/charges/{owed['charge']}")["status"] == "failed"
    # Day 8: the run's retry falls due and fails (attempt 3); a good card attached as the default on the
    # same day retries the open invoice at once, and it is paid (attempt 4): ACTIVE again.
    box.advance(first_failure + 8 * DAY + 1)
    owed = box.invoice(owed_id)
    assert (owed["status"], owed["attempt_count"]) == ("OPEN", 3)
    assert owed["next_attempt_at"] == first_failure + 15 * DAY
    box.attach(customers["recovers"], OK_CARD, set_default=True)
    paid = box.invoice(owed_id)
    assert (paid["status"], paid["attempt_count"], paid["next_attempt_at"]) == ("PAID", 4, None)
    assert box.subscription(subs["recovers"])["status"] == "ACTIVE"
    recovered_charge = box.get(f"/charges/{paid['charge']}")
    assert (recovered_charge["status"], recovered_charge["amount"]) == ("captured", 2000)

    # addons: 2 seats added mid-cycle, their proration deferred to the next invoice.
    addons_url = f"/subscriptions/{subs['addons']}/items"
    box.at_exactly(t(ADD_ITEM_AT))
    item = box.post(
        addons_url, {"priceId": seat, "quantity": 2, "prorationBehavior": "defer_to_next_cycle"}, 201
    )
    assert item["addedAt"] == datetime.fromtimestamp(t(ADD_ITEM_AT), UTC).strftime("%Y-%m-%dT%H:%M:%S")
    assert item["prorationAmountCents"] == 484
    # never: day 44 — its day-15 retry failed (UNCOLLECTIBLE, UNPAID); the cancel comes on day 45.
    assert box.subscription(subs["never"])["status"] == "UNPAID"

    box.at_exactly(t(PAUSE_AT))
    paused = box.post(f"/subscriptions/{subs['paused']}/pause")
    assert (paused["status"], paused["paused_at"]) == ("PAUSED", t(PAUSE_AT))

    box.at_exactly(t(RAISE_AT))
    raised = ok(
        client.patch(f"{API}{addons_url}/{item['id']}", json={"quantity": 3}, headers=box.merchant.auth)
    )
    assert (raised["quantity"], raised["prorationAmountCents"]) == (3, 339)

    box.at_exactly(t(RESUME_AT))
    resumed = box.post(f"/subscriptions/{subs['paused']}/resume")
    assert (resumed["status"], resumed["current_period_start"]) == ("ACTIVE", t(RESUME_AT))

    box.at_exactly(t(REMOVE_AT))
    removed = ok(
        client.delete(
            f"{API}{addons_url}/{item['id']}", params={"immediate": "true"}, headers=box.merchant.auth
        )
    )
    assert (removed["status"], removed["prorationAmountCents"]) == ("removed", -508)

    box.at_exactly(t(END))

    # Every invoice of every subscription, oldest first, against the table.
    for name, expected in EXPECTED.items():
        listed = box.get("/invoices", subscription_id=subs[name], limit=100)["data"]
        listed.sort(key=lambda invoice: (invoice["period_start"], invoice["created"]))
        assert len(listed) == len(expected), f"{name}: {[shown(inv) for inv in listed]}"
        money = credits(stack_env, [invoice["id"] for invoice in listed])
        for index, (invoice, want) in enumerate(zip(listed, expected, strict=True)):
            where = f"{name} invoice {index} ({want.start})"
            assert shown(invoice) == want._replace(fee=None, net=None), where
            tax_rate = {"trial": inclusive, "addons": exclusive}.get(name)
            assert invoice["tax_rate_id"] == tax_rate, where
            if want.status == "PAID":
                assert money[invoice["id"]] == (want.total, want.fee, want.tax, want.net), where
                # DESIGN §9: fee = round_half_up(total × 0.029 + 30), net = max(0, total − fee − tax).
                attempt = box.get(f"/charges/{invoice['charge']}")
                assert (attempt["status"], attempt["amount"], attempt["invoice"]) == (
                    "captured",
                    want.total,
                    invoice["id"],
                ), where
            else:
                assert invoice["id"] not in money, where

    # Final statuses; `never` went UNPAID on day 15 and was canceled 30 days later, on day 45.
    for name, status in FINAL_STATUS.items():
        assert box.subscription(subs[name])["status"] == status, name
    never = box.subscription(subs["never"])
    assert never["cancel_reason"] == "payment_failed"
    assert 0 <= never["canceled_at"] - (t(CREATED["never"]) + 45 * DAY) <= DRIFT
    assert box.subscription(subs["paused"])["current_period_start"] == t("2028-01-15 12:00")

    # invoice.paid / invoice.payment_failed per subscription.
    for event_type, counts in (("invoice.paid", PAID_EVENTS), ("invoice.payment_failed", FAILED_EVENTS)):
        events = box.get("/events", type=event_type, limit=100)["data"]
        assert len(events) < 100
        per_sub = {name: 0 for name in subs}
        by_id = {sub_id: name for name, sub_id in subs.items()}
        for event in events:
            per_sub[by_id[event["data"]["object"]["subscription_id"]]] += 1
        assert per_sub == counts, event_type
