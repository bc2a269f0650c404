"""A month of one merchant's ledger through the gateway and the sandbox clock only (DESIGN §9, issue 16):
captures, refunds, disputes, subscription invoices and daily payouts, compared with a table made by hand.

The merchant (daily payouts, an ordinary account) lives March 2028 and the morning of April 1. Every day
the clock is first advanced to 00:01 (that midnight's payout is made, the previous one arrives), then to
11:00 (the subscriptions' invoices due at 10:00 and 10:05 are paid on the way), then the day's moves are
made. So every row of day d is created on day d after 10:00, is available on day d + 2 after 10:00, and
is settled by the payout of day d + 3 at 00:00 unless what is available then stays below usd's 2500.

Rules used by hand (README "Balance and ledger", "Payouts"; DESIGN §9):
    charge        + captured, fee = min(captured, round_half_up(captured × 0.029 + 30)), net = amount − fee
    refund        − refunded, fee 0
    dispute       − (captured − refunded) at stake, fee 1500, net −(amount + 1500); a lost one adds nothing
    dispute_won   + the amount at stake, fee −1500, net amount + 1500
    subscription  + invoice total, fee = round_half_up(total × 0.029 + 30), tax, net = total − fee − tax
    payout        at 00:00 UTC of day D, the sum of the nets available by then and not settled yet, when it
                  reaches 2500; `paid` a day later
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any, NamedTuple

import httpx
import pytest

from tests.e2e.api_client import PASSWORD, authorized_charge, sign_up
from tests.support.processes import RunningProcess
from tests.support.reconcile import assert_reconciles
from tests.support.sandbox_clock import t
from tests.support.subscription_shop import OK_CARD, Sandbox

pytestmark = pytest.mark.e2e

JSON = dict[str, Any]
DAY = 86_400
FIRST_DAY = "2028-03-01"
LAST_DAY = "2028-04-01"
END = "2028-04-01 12:00"
MONTHLY_AT = "2028-03-01 10:00"  # 4000/month + 8.25 % exclusive → invoices Mar 1 and Apr 1 at 10:00
WEEKLY_AT = "2028-03-01 10:05"  # 1500/week, no tax → invoices Mar 1, 8, 15, 22, 29 at 10:05


# -- the hand-computed table ----------------------------------------------------------------------------


class Row(NamedTuple):
    """A balance transaction: the day it is created, then type, amount, fee, tax, net."""

    day: str
    type: str
    amount: int
    fee: int
    tax: int
    net: int


# fmt: off
ROWS: dict[str, Row] = {
    # Mar 1. m1: 4000 + round_half_up(4000 × 0.0825 = 330) = 4330; fee round_half_up(125.57 + 30) = 156;
    # net 4330 − 156 − 330 = 3844. w1: 1500, fee round_half_up(43.5 + 30 = 73.5) = 74, net 1426.
    "inv_m1": Row("03-01", "subscription", 4330, 156, 330, 3844),
    "inv_w1": Row("03-01", "subscription", 1500, 74, 0, 1426),
    "A": Row("03-01", "charge", 10_000, 320, 0, 9680),  # fee 290 + 30
    # Mar 2. B: 8000 authorized, 5000 captured: fee 145 + 30 = 175. C: 68.005 + 30 → 98.
    # T: 100 authorized, 25 captured: round_half_up(0.725 + 30) = 31, capped at the amount → 25, net 0.
    "B": Row("03-02", "charge", 5000, 175, 0, 4825),
    "C": Row("03-02", "charge", 2345, 98, 0, 2247),
    "T": Row("03-02", "charge", 25, 25, 0, 0),
    # Mar 3. A refunded 3000 of 10 000; D: fee 580 + 30 = 610.
    "re_A": Row("03-03", "refund", -3000, 0, 0, -3000),
    "D": Row("03-03", "charge", 20_000, 610, 0, 19_390),
    # Mar 4. E: 36.25 + 30 → 66 (alone on its day: 1184 stays below 2500 on Mar 7).
    "E": Row("03-04", "charge", 1250, 66, 0, 1184),
    # Mar 5. F: 15 000 authorized, 12 345 captured: 358.005 + 30 → 388.
    "F": Row("03-05", "charge", 12_345, 388, 0, 11_957),
    # Mar 6. B disputed: 5000 at stake (its captured amount, nothing refunded) + the 1500 fee.
    # H: fee 870 + 30 = 900.
    "dp_B": Row("03-06", "dispute", -5000, 1500, 0, -6500),
    "H": Row("03-06", "charge", 30_000, 900, 0, 29_100),
    # Mar 7. C refunded in full (2345); F disputed: 12 345 at stake + 1500; I: 725 + 30 = 755.
    "re_C": Row("03-07", "refund", -2345, 0, 0, -2345),
    "dp_F": Row("03-07", "dispute", -12_345, 1500, 0, -13_845),
    "I": Row("03-07", "charge", 25_000, 755, 0, 24_245),
    # Mar 8. w2 as w1; B's dispute closed lost (no row); J: 6000 authorized, 4000 captured: 116 + 30 = 146.
    "inv_w2": Row("03-08", "subscription", 1500, 74, 0, 1426),
    "J": Row("03-08", "charge", 4000, 146, 0, 3854),
    # Mar 9. F's dispute won: the amount and the fee come back.
    "dpw_F": Row("03-09", "dispute_won", 12_345, -1500, 0, 13_845),
    # Mar 10. H refunded 7000 of 30 000; K: 348 + 30 = 378.
    "re_H": Row("03-10", "refund", -7000, 0, 0, -7000),
    "K": Row("03-10", "charge", 12_000, 378, 0, 11_622),
    "inv_w3": Row("03-15", "subscription", 1500, 74, 0, 1426),
    "L": Row("03-16", "charge", 3000, 117, 0, 2883),  # 87 + 30
    "inv_w4": Row("03-22", "subscription", 1500, 74, 0, 1426),
    "inv_w5": Row("03-29", "subscription", 1500, 74, 0, 1426),
    "N": Row("03-30", "charge", 5000, 175, 0, 4825),  # available Apr 1 ~11:00: after Apr 1's payout
    "re_K": Row("03-31", "refund", -2000, 0, 0, -2000),  # still pending at the end
    "inv_m2": Row("04-01", "subscription", 4330, 156, 330, 3844),  # still pending at the end
}


class Payout(NamedTuple):
    day: str
    amount: int
    status: str
    settles: tuple[str, ...]


PAYOUTS = [
    # Mar 1–3: nothing available yet (Mar 1's rows become available on Mar 3 after 10:00).
    Payout("03-04", 14_950, "paid", ("inv_m1", "inv_w1", "A")),  # 3844 + 1426 + 9680
    Payout("03-05", 7072, "paid", ("B", "C", "T")),  # 4825 + 2247 + 0
    Payout("03-06", 16_390, "paid", ("re_A", "D")),  # −3000 + 19 390
    # Mar 7: only E's 1184 is available: below 2500, no payout; it waits for Mar 8.
    Payout("03-08", 13_141, "paid", ("E", "F")),  # 1184 + 11 957
    Payout("03-09", 22_600, "paid", ("dp_B", "H")),  # −6500 + 29 100
    Payout("03-10", 8055, "paid", ("re_C", "dp_F", "I")),  # −2345 − 13 845 + 24 245
    Payout("03-11", 5280, "paid", ("inv_w2", "J")),  # 1426 + 3854
    Payout("03-12", 13_845, "paid", ("dpw_F",)),  # 12 345 + 1500
    Payout("03-13", 4622, "paid", ("re_H", "K")),  # −7000 + 11 622
    # Mar 14–17: nothing available. Mar 18: w3's 1426 alone, below 2500: it waits.
    Payout("03-19", 4309, "paid", ("inv_w3", "L")),  # 1426 + 2883
    # Mar 25–31: w4's 1426 waits, below 2500, until w5's 1426 joins it.
    Payout("04-01", 2852, "pending", ("inv_w4", "inv_w5")),  # 1426 + 1426; arrives Apr 2 00:00
]

WAITING = {"03-07": 1184, "03-18": 1426, **{f"03-{d}": 1426 for d in range(25, 32)}}
"""The available balance at 00:01 of a day whose midnight made no payout though something was
available (any other day: 0, everything available was just paid out)."""

# The end, Apr 1 12:00: N's 4825 became available at ~11:00, after Apr 1's payout; re_K and m2 pending.
BALANCE_AT_END = {"available": 4825, "pending": -2000 + 3844}
# fmt: on


# -- the day's moves ------------------------------------------------------------------------------------


class Capture(NamedTuple):
    name: str
    authorized: int
    captured: int | None = None  # None: the whole amount


class Refund(NamedTuple):
    name: str
    charge: str
    amount: int | None = None  # None: what is left


class Dispute(NamedTuple):
    name: str
    charge: str


class Close(NamedTuple):
    dispute: str
    outcome: str
    name: str | None = None  # the name of its dispute_won row, if won


Move = Capture | Refund | Dispute | Close

MOVES: dict[str, list[Move]] = {
    "03-01": [Capture("A", 10_000)],
    "03-02": [Capture("B", 8000, 5000), Capture("C", 2345), Capture("T", 100, 25)],
    "03-03": [Refund("re_A", "A", 3000), Capture("D", 20_000)],
    "03-04": [Capture("E", 1250)],
    "03-05": [Capture("F", 15_000, 12_345)],
    "03-06": [Dispute("dp_B", "B"), Capture("H", 30_000)],
    "03-07": [Refund("re_C", "C"), Dispute("dp_F", "F"), Capture("I", 25_000)],
    "03-08": [Close("dp_B", "lost"), Capture("J", 6000, 4000)],
    "03-09": [Close("dp_F", "won", "dpw_F")],
    "03-10": [Refund("re_H", "H", 7000), Capture("K", 12_000)],
    "03-16": [Capture("L", 3000)],
    "03-30": [Capture("N", 5000)],
    "03-31": [Refund("re_K", "K", 2000)],
}


# -- helpers --------------------------------------------------------------------------------------------


@pytest.fixture
def client(unthrottled_gateway: RunningProcess) -> Iterator[httpx.Client]:
    """The session's core behind a gateway without the per-merchant rate limit (a month of reads)."""
    with httpx.Client(base_url=unthrottled_gateway.base_url, timeout=60.0) as http:
        yield http


def day_of(unix: int) -> str:
    return datetime.fromtimestamp(unix, UTC).strftime("%m-%d")


def usd(amounts: list[JSON]) -> int:
    """A balance side's usd amount; no row at all yet reads as 0."""
    return sum(entry["amount"] for entry in amounts if entry["currency"] == "usd")


class Month:
    """The merchant's moves, remembering each object's id and each row's name in the table."""

    def __init__(self, client: httpx.Client, box: Sandbox) -> None:
        self.client = client
        self.box = box
        self.ids: dict[str, str] = {}
        self.rows: dict[tuple[str, str], str] = {}
        """(row type, source id) → the row's name: a won dispute's source is its dispute as well."""

    def name(self, name: str, row_type: str, source: str) -> None:
        self.ids[name] = source
        self.rows[(row_type, source)] = name

    def name_of(self, row: JSON) -> str:
        return "payout" if row["type"] == "payout" else self.rows[(row["type"], row["source"])]

    def make(self, move: Move) -> None:
        box = self.box
        if isinstance(move, Capture):
            charge = authorized_charge(self.client, box.merchant, amount=move.authorized)
            body = {} if move.captured is None else {"amount": move.captured}
            captured = box.post(f"/charges/{charge['id']}/capture", body)
            assert captured["amount_captured"] == (move.captured or move.authorized), captured
            self.name(move.name, "charge", charge["id"])
        elif isinstance(move, Refund):
            body = {} if move.amount is None else {"amount": move.amount}
            refund = box.post(f"/charges/{self.ids[move.charge]}/refunds", body, 201)
            self.name(move.name, "refund", refund["id"])
        elif isinstance(move, Dispute):
            dispute = box.post(f"/test_helpers/charges/{self.ids[move.charge]}/dispute", None, 201)
            self.name(move.name, "dispute", dispute["id"])
        else:
            closed = box.post(
                f"/test_helpers/disputes/{self.ids[move.dispute]}/close", {"outcome": move.outcome}
            )
            assert closed["status"] == move.outcome, closed
            if move.name is not None:
                self.name(move.name, "dispute_won", closed["id"])


# -- the month ------------------------------------------------------------------------------------------


def test_a_month_of_ledger_and_daily_payouts_matches_the_hand_computed_table(
    client: httpx.Client, stack_env: dict[str, str]
) -> None:
    merchant = sign_up(client)
    profile = {
        "payout_schedule": "daily",
        "payout_account_number": "000123456789",
        "current_password": PASSWORD,
    }
    assert client.patch("/api/v1/merchants/me", json=profile, headers=merchant.jwt).status_code == 200
    box = Sandbox(client, merchant)
    month = Month(client, box)
    assert box.now() < t(MONTHLY_AT) - DAY

    monthly = box.price(4000)
    created = box.post("/plans", {"name": "Weekly"}, 201)
    weekly_body = {"amount_cents": 1500, "currency": "usd", "interval": "weekly"}
    weekly = str(box.post(f"/plans/{created['id']}/prices", weekly_body, 201)["id"])
    exclusive = box.tax_rate("8.25", False, "US", "CA")
    monthly_customer, weekly_customer = box.customer(OK_CARD), box.customer(OK_CARD)

    expected_days = {payout.day for payout in PAYOUTS}
    subs: dict[str, str] = {}
    day = datetime.strptime(FIRST_DAY, "%Y-%m-%d").replace(tzinfo=UTC)
    while day <= datetime.strptime(LAST_DAY, "%Y-%m-%d").replace(tzinfo=UTC):
        today = day.strftime("%m-%d")
        midnight = int(day.timestamp())
        box.at_exactly(midnight + 60)  # this midnight's payout, yesterday's arrival
        made = [day_of(p["created"]) for p in box.get("/payouts", limit=100)["data"]]
        assert sorted(made) == sorted(d for d in expected_days if d <= today), today
        available = usd(box.get("/balance")["available"])
        assert available == WAITING.get(today, 0), f"{today}: available {available}"

        if today == "03-01":
            box.at_exactly(t(MONTHLY_AT))
            body = {"customer_id": monthly_customer, "price_id": monthly, "tax_rate_id": exclusive}
            subs["m"] = box.post("/subscriptions", body, 201)["id"]
            box.at_exactly(t(WEEKLY_AT))
            subs["w"] = box.post("/subscriptions", {"customer_id": weekly_customer, "price_id": weekly}, 201)[
                "id"
            ]
        box.at_exactly(midnight + 11 * 3600)  # the invoices due at 10:00 / 10:05 are paid on the way
        for move in MOVES.get(today, []):
            month.make(move)
        day += timedelta(days=1)
    box.at_exactly(t(END))

    # The subscriptions' invoices, oldest first, named as in the table.
    for key, count in (("m", 2), ("w", 5)):
        listed = box.get("/invoices", subscription_id=subs[key], limit=100)["data"]
        listed.sort(key=lambda invoice: invoice["period_start"])
        assert [invoice["status"] for invoice in listed] == ["PAID"] * count, key
        for index, invoice in enumerate(listed, start=1):
            month.name(f"inv_{key}{index}", "subscription", invoice["id"])

    # Every row of the month, against the table.
    every = box.get("/balance-transactions", limit=100)
    assert not every["has_more"]
    shown: dict[str, Row] = {}
    for row in every["data"]:
        if row["type"] == "payout":  # available at once
            assert row["available_on"] == row["created"] and row["status"] == "available", row
        else:
            assert row["available_on"] == row["created"] + 2 * DAY, row
            name = month.name_of(row)
            shown[name] = Row(
                day_of(row["created"]), row["type"], row["amount"], row["fee"], row["tax"], row["net"]
            )
    assert shown == ROWS

    # (b) The payout table, and (d) exactly the rows each payout settled (its own payout row with them).
    payouts = sorted(box.get("/payouts", limit=100)["data"], key=lambda p: p["created"])
    assert [(day_of(p["created"]), p["amount"], p["status"]) for p in payouts] == [
        (payout.day, payout.amount, payout.status) for payout in PAYOUTS
    ]
    for payout, want in zip(payouts, PAYOUTS, strict=True):
        assert payout["created"] % DAY == 0 and payout["arrival_date"] == payout["created"] + DAY, payout
        settled = box.get("/balance-transactions", payout=payout["id"], limit=100)["data"]
        assert sorted(month.name_of(row) for row in settled) == sorted((*want.settles, "payout")), want.day
        own = next(row for row in settled if row["type"] == "payout")
        assert (own["source"], own["net"]) == (payout["id"], -want.amount), want.day
        assert sum(ROWS[name].net for name in want.settles) == want.amount, want.day  # the comment's sum

    # (c) The balance at the end.
    body = box.get("/balance")
    assert {"available": usd(body["available"]), "pending": usd(body["pending"])} == BALANCE_AT_END

    # (a) The ledger's own proof on the stack's database.
    assert_reconciles(stack_env["DATABASE_URL"])
