"""The billing invariants (docs/billing-invariants.md) under random sequences of merchant moves: a
hypothesis state machine drives the real gateway, core and PostgreSQL, one fresh merchant per example.

Moves: subscriptions (monthly, with or without an 8 % exclusive tax rate, an unchargeable 99,999,999
price among them), price changes with each behaviour, item add / update / remove with each behaviour,
cancels (at period end or now, with or without prorate), pause / resume, the default card swapped to
the declining 4000000000000341 and back, refunds, disputes opened and closed, the merchant's credit
adjustments, and sandbox-clock advances by hours or to around a period end, up to 75 days. A move may
answer a documented 4xx; it must carry the error envelope and change nothing observable. No move may
answer a 5xx.

After every step the cheap invariants are checked (invoice arithmetic, line amounts, one invoice per
period); at the end of each example all of them (`teardown`).

    BILLING_PROPERTY_EXAMPLES (10), BILLING_PROPERTY_STEPS (15): the size of the run (`make test` keeps it
        short for the suite's time bound; `make billing-properties` runs 200 examples).
    BILLING_PROPERTY_SHRINK=0: report the first failing sequence of each kind as found, unshrunk (hypothesis
        spends up to five minutes shrinking one, each try a replay against the real processes).
    BILLING_PROPERTY_SKIP: comma-separated invariant names (docs/billing-invariants.md) not to check,
        to triage one failure at a time; empty by default.

A failure prints the steps of the smallest sequence found and a `@reproduce_failure` blob.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

import httpx
import pytest
from hypothesis import HealthCheck, Phase, note, settings
from hypothesis import strategies as st
from hypothesis.control import currently_in_test_context
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from tests.e2e import billing_invariant_checks as checks
from tests.e2e.api_client import API, Merchant, sign_up
from tests.e2e.billing_coverage import BASE, BOUNDS, HeldRecord, Pause, check_coverage, check_line_amounts
from tests.e2e.billing_reads import JSON, BillingSnapshot, checked, every_page, snapshot
from tests.e2e.subscription_api_helpers import DAY, DUNNING_CARD, customer, price, tax_rate, unix_of
from tests.support.processes import RunningProcess

pytestmark = pytest.mark.e2e

EXAMPLES = int(os.environ.get("BILLING_PROPERTY_EXAMPLES", "10"))
STEPS = int(os.environ.get("BILLING_PROPERTY_STEPS", "15"))
SHRINK = os.environ.get("BILLING_PROPERTY_SHRINK", "1") != "0"
SKIP = {name.strip() for name in os.environ.get("BILLING_PROPERTY_SKIP", "").split(",") if name.strip()}

settings.register_profile(
    "billing-properties",
    max_examples=EXAMPLES,
    stateful_step_count=STEPS,
    deadline=None,
    derandomize=False,
    print_blob=True,
    phases=tuple(Phase) if SHRINK else tuple(p for p in Phase if p is not Phase.shrink),
    # Each step is a few HTTP requests to real processes: slow by hypothesis's measure, by design.
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)

BASE_AMOUNTS = {"base_3000": 3000, "base_100000": 100_000, "base_2000": 2000, "base_huge": 99_999_999}
"""Monthly base prices; base_huge with the 8 % rate is 107,999,999: over DESIGN §10.3's limit."""
ADDON_AMOUNTS = {"addon_500": 500, "addon_1200": 1200, "addon_250": 250}
TAX_PERCENTAGE = Fraction(8)
HORIZON = 75 * DAY
"""How far an example advances its sandbox clock: two and a half monthly periods."""

SUBSCRIPTION_BEHAVIOURS = ("create_prorations", "always_invoice", "none")
ITEM_BEHAVIOURS = ("defer_to_next_cycle", "charge_immediately", "none")
REFUNDABLE = ("captured", "partially_refunded")
WAIT = st.integers(0, 96)
"""Hours the sandbox clock is advanced before a move: time passes between a customer's moves."""
PICK = st.integers(0, 15)
"""Which subscription, item or charge a move is about: an index into the candidates (modulo their number),
so what hypothesis draws never depends on the server's state and a saved example replays the same draws."""


def choose(candidates: list[Any], pick: int, what: str) -> Any:
    """The candidate `pick` names, or None when the wait before the move left none."""
    if not candidates:
        return None
    chosen = candidates[pick % len(candidates)]
    if currently_in_test_context():  # a regression test replays the moves without hypothesis
        note(f"{what}: {chosen['id'] if isinstance(chosen, dict) else chosen}")
    return chosen


@dataclass
class HeldItem:
    subscription_id: str
    price_label: str
    quantity: int
    is_base: bool
    removed: bool = False
    removal_at: int | None = None


class BillingMachine(RuleBasedStateMachine):
    """One merchant, one customer, up to two live subscriptions at a time."""

    client: ClassVar[httpx.Client]

    def __init__(self) -> None:
        super().__init__()
        c = self.client
        self.merchant: Merchant = sign_up(c)
        self.start = self.now()
        self.prices = {
            label: price(c, self.merchant, amount, interval="monthly")
            for label, amount in BASE_AMOUNTS.items()
        }
        self.prices |= {
            label: price(c, self.merchant, amount, interval="monthly")
            for label, amount in ADDON_AMOUNTS.items()
        }
        self.amounts = {
            self.prices[label]: amount for label, amount in (BASE_AMOUNTS | ADDON_AMOUNTS).items()
        }
        self.base_prices = {self.prices[label] for label in BASE_AMOUNTS}
        self.tax_rate = tax_rate(c, self.merchant, str(TAX_PERCENTAGE), False)
        self.customer_id = customer(c, self.merchant)
        self.ok_card = checked(self.get(f"/customers/{self.customer_id}"))["default_payment_method"]
        self.bad_card: str | None = None
        self.records: dict[str, HeldRecord] = {}
        self.items: dict[str, HeldItem] = {}
        self.statuses: dict[str, str] = {}

    # -- requests -------------------------------------------------------------------------------------

    def get(self, path: str, **params: str) -> httpx.Response:
        return self.client.get(f"{API}{path}", params=params, headers=self.merchant.auth)

    def send(self, method: str, path: str, body: JSON | None = None) -> httpx.Response:
        response = self.client.request(method, f"{API}{path}", json=body, headers=self.merchant.auth)
        assert response.status_code < 500, f"{method} {path} {body}: {response.status_code} {response.text}"
        return response

    def now(self) -> int:
        return int(checked(self.get("/test_helpers/clock"))["now"])

    def observable(self) -> tuple[Any, ...]:
        """What a refused move must leave as it was."""
        return (
            every_page(self.client, self.merchant, "/subscriptions", customer_id=self.customer_id),
            every_page(self.client, self.merchant, "/invoices"),
            every_page(self.client, self.merchant, "/charges"),
            checked(self.get(f"/customers/{self.customer_id}")),
        )

    def attempt(self, method: str, path: str, body: JSON | None = None) -> JSON | None:
        """The answer of a move that succeeded; None for a 4xx, after checking it changed nothing."""
        before = self.observable()
        response = self.send(method, path, body)
        if response.status_code < 300:
            return dict(response.json())
        assert 400 <= response.status_code < 500, response.text
        error = response.json()["error"]
        assert set(error) >= {"type", "code", "message", "param", "doc_url"}, response.text
        if "refusal_changes_nothing" not in SKIP:
            after = self.observable()
            assert after == before, (
                f"{method} {path} {body} answered {response.status_code} {error}"
                f" yet changed: {diff(before, after)}"
            )
        return None

    # -- what the machine holds -----------------------------------------------------------------------

    # Candidates are listed in the order they were made (never by their random ids), so the same draws
    # pick the same objects when hypothesis replays an example.

    def live(self) -> list[str]:
        return [sid for sid, status in self.statuses.items() if status != "CANCELED"]

    def active_items(self, *, base: bool) -> list[str]:
        live = set(self.live())
        return [
            iid
            for iid, item in self.items.items()
            if item.subscription_id in live
            and not item.removed
            and item.removal_at is None
            and item.is_base == base
        ]

    def group(self, item: HeldItem) -> str:
        return BASE if item.is_base else self.prices[item.price_label]

    # -- rules ----------------------------------------------------------------------------------------

    @initialize(base=st.sampled_from(sorted(BASE_AMOUNTS)), taxed=st.booleans())
    def first_subscription(self, base: str, taxed: bool) -> None:
        """Every example starts with one, so its steps are spent on moves."""
        self.create_subscription(0, base, taxed)

    @precondition(lambda self: len(self.live()) < 2)
    @rule(wait=WAIT, base=st.sampled_from(sorted(BASE_AMOUNTS)), taxed=st.booleans())
    def create_subscription(self, wait: int, base: str, taxed: bool) -> None:
        self.wait(wait)
        body: JSON = {"customer_id": self.customer_id, "price_id": self.prices[base]}
        if taxed:
            body["tax_rate_id"] = self.tax_rate
        sub = self.attempt("POST", "/subscriptions", body)
        if sub is None:
            return
        record = HeldRecord(sub["id"], created=sub["current_period_start"])
        record.change(BASE, sub["current_period_start"], 1)
        self.records[sub["id"]] = record
        self.statuses[sub["id"]] = sub["status"]
        base_item = next(item for item in sub["items"] if item["isBaseItem"])
        self.items[base_item["id"]] = HeldItem(sub["id"], base, 1, is_base=True)

    @precondition(lambda self: self.live())
    @rule(
        wait=WAIT,
        pick=PICK,
        to=st.sampled_from(sorted(BASE_AMOUNTS)),
        behaviour=st.sampled_from(SUBSCRIPTION_BEHAVIOURS),
    )
    def change_price(self, wait: int, pick: int, to: str, behaviour: str) -> None:
        self.wait(wait)
        sub_id = choose(self.live(), pick, "subscription")
        if sub_id is None:  # the wait ended it
            return
        body = {"price_id": self.prices[to], "proration_behavior": behaviour}
        if self.attempt("PATCH", f"/subscriptions/{sub_id}", body) is None:
            return
        for item in self.items.values():
            if item.subscription_id == sub_id and item.is_base:
                item.price_label = to

    @precondition(lambda self: self.live())
    @rule(
        wait=WAIT,
        pick=PICK,
        addon=st.sampled_from(sorted(ADDON_AMOUNTS)),
        quantity=st.integers(1, 3),
        behaviour=st.sampled_from(ITEM_BEHAVIOURS),
    )
    def add_item(self, wait: int, pick: int, addon: str, quantity: int, behaviour: str) -> None:
        self.wait(wait)
        sub_id = choose(self.live(), pick, "subscription")
        if sub_id is None:  # the wait ended it
            return
        held = {i.price_label for i in self.items.values() if i.subscription_id == sub_id and not i.removed}
        if addon in held:  # one item per add-on price at a time: the coverage check tells items by price
            return
        at = self.now()
        body = {"priceId": self.prices[addon], "quantity": quantity, "prorationBehavior": behaviour}
        item = self.attempt("POST", f"/subscriptions/{sub_id}/items", body)
        if item is None:
            return
        self.items[item["id"]] = HeldItem(sub_id, addon, quantity, is_base=False)
        self.records[sub_id].change(self.prices[addon], at, quantity, none=behaviour == "none")

    @precondition(lambda self: self.active_items(base=False))
    @rule(wait=WAIT, pick=PICK, quantity=st.integers(1, 4), behaviour=st.sampled_from(ITEM_BEHAVIOURS))
    def update_item(self, wait: int, pick: int, quantity: int, behaviour: str) -> None:
        self.wait(wait)
        item_id = choose(self.active_items(base=False), pick, "item")
        if item_id is None:  # the wait ended it
            return
        item = self.items[item_id]
        at = self.now()
        body = {"quantity": quantity, "prorationBehavior": behaviour}
        if self.attempt("PATCH", f"/subscriptions/{item.subscription_id}/items/{item_id}", body) is None:
            return
        item.quantity = quantity
        self.records[item.subscription_id].change(self.group(item), at, quantity, none=behaviour == "none")

    @precondition(lambda self: self.active_items(base=False) or self.active_items(base=True))
    @rule(wait=WAIT, pick=PICK, immediate=st.booleans())
    def remove_item(self, wait: int, pick: int, immediate: bool) -> None:
        """The base item is among the candidates: removing it answers 400 invalid_state."""
        self.wait(wait)
        candidates = self.active_items(base=False) + self.active_items(base=True)
        item_id = choose(candidates, pick, "item")
        if item_id is None:  # the wait ended it
            return
        item = self.items[item_id]
        at = self.now()
        query = "?immediate=true" if immediate else ""
        removed = self.attempt("DELETE", f"/subscriptions/{item.subscription_id}/items/{item_id}{query}")
        assert not (item.is_base and removed is not None), f"the base item was removed: {removed}"
        if removed is None:
            return
        record = self.records[item.subscription_id]
        if removed["status"] == "removed":
            item.removed = True
            record.change(self.group(item), at, 0)
        else:
            item.removal_at = unix_of(removed["removedAt"])
            record.change(self.group(item), item.removal_at, 0)

    @precondition(lambda self: self.live())
    @rule(wait=WAIT, pick=PICK, at_period_end=st.booleans(), prorate=st.booleans())
    def cancel(self, wait: int, pick: int, at_period_end: bool, prorate: bool) -> None:
        self.wait(wait)
        sub_id = choose(self.live(), pick, "subscription")
        if sub_id is None:  # the wait ended it
            return
        at = self.now()
        body = {"at_period_end": at_period_end, "prorate": prorate}
        sub = self.attempt("POST", f"/subscriptions/{sub_id}/cancel", body)
        if sub is None:
            return
        record = self.records[sub_id]
        record.dirty = True
        end = sub["current_period_end"] if at_period_end else at
        for group in list(record.changes):
            if record.held(group, end) > 0:
                record.change(group, end, 0)
        self.statuses[sub_id] = sub["status"]

    @precondition(lambda self: self.live())
    @rule(wait=WAIT, pick=PICK)
    def pause(self, wait: int, pick: int) -> None:
        self.wait(wait)
        sub_id = choose(self.live(), pick, "subscription")
        if sub_id is None:  # the wait ended it
            return
        at = self.now()
        sub = self.attempt("POST", f"/subscriptions/{sub_id}/pause")
        if sub is None:
            return
        record = self.records[sub_id]
        record.dirty = True
        record.pauses.append(Pause(at, sub["current_period_end"]))

    @precondition(lambda self: self.live())
    @rule(wait=WAIT, pick=PICK)
    def resume(self, wait: int, pick: int) -> None:
        self.wait(wait)
        sub_id = choose(self.live(), pick, "subscription")
        if sub_id is None:  # the wait ended it
            return
        sub = self.attempt("POST", f"/subscriptions/{sub_id}/resume")
        if sub is None:
            return
        record = self.records[sub_id]
        assert record.pauses and record.pauses[-1].resumed is None, (
            f"resumed a subscription never paused: {sub}"
        )
        record.pauses[-1].resumed = sub["current_period_start"]

    @rule(wait=WAIT, declining=st.booleans())
    def swap_card(self, wait: int, declining: bool) -> None:
        """4000000000000341 attaches, then declines every charge; a default card change on a PAST_DUE or
        UNPAID subscription's customer retries its open invoice at once."""
        self.wait(wait)
        path = f"/customers/{self.customer_id}"
        if declining and self.bad_card is None:
            card = {"number": DUNNING_CARD, "exp_month": 12, "exp_year": 2099, "cvc": "123"}
            attached = self.attempt(
                "POST", f"{path}/payment-methods", {"type": "card", "card": card, "set_default": True}
            )
            assert attached is not None, "the dunning card must attach"
            self.bad_card = attached["id"]
            return
        card_id = self.bad_card if declining else self.ok_card
        assert self.attempt("PATCH", path, {"default_payment_method": card_id}) is not None

    def charges_where(self, statuses: tuple[str, ...]) -> list[JSON]:
        charges = every_page(self.client, self.merchant, "/charges")
        return [c for c in reversed(charges) if c.get("invoice") and c["status"] in statuses]

    @rule(wait=WAIT, pick=PICK, whole=st.booleans(), per_mille=st.integers(1, 999))
    def refund(self, wait: int, pick: int, whole: bool, per_mille: int) -> None:
        self.wait(wait)
        charges = self.charges_where(REFUNDABLE)
        if not charges:
            return
        charge = choose(charges, pick, "charge")
        left = charge["amount_captured"] - charge["amount_refunded"]
        amount = left if whole else max(1, left * per_mille // 1000)
        self.attempt("POST", f"/charges/{charge['id']}/refunds", {"amount": amount})

    @rule(wait=WAIT, pick=PICK)
    def open_dispute(self, wait: int, pick: int) -> None:
        self.wait(wait)
        charges = [c for c in self.charges_where(REFUNDABLE) if not c.get("dispute")]
        if not charges:
            return
        charge = choose(charges, pick, "charge")
        self.attempt("POST", f"/test_helpers/charges/{charge['id']}/dispute")

    @rule(wait=WAIT, pick=PICK, outcome=st.sampled_from(("won", "lost")))
    def close_dispute(self, wait: int, pick: int, outcome: str) -> None:
        self.wait(wait)
        charges = [c for c in self.charges_where(("disputed",)) if c["dispute"]["status"] == "needs_response"]
        if not charges:
            return
        dispute = choose(charges, pick, "charge")["dispute"]
        self.attempt("POST", f"/test_helpers/disputes/{dispute['id']}/close", {"outcome": outcome})

    @rule(wait=WAIT, amount=st.integers(-5000, 20_000).filter(bool))
    def adjust_credit(self, wait: int, amount: int) -> None:
        """DESIGN §10.1: a goodwill credit or a correction; below a zero balance → 400 parameter_invalid."""
        self.wait(wait)
        body = {"amount_cents": amount, "currency": "usd", "description": "goodwill"}
        self.attempt("POST", f"/customers/{self.customer_id}/balance-transactions", body)

    @rule(hours=st.integers(1, 12 * 24))
    def advance_clock(self, hours: int) -> None:
        self.advance_to(self.now() + hours * 3600)

    @precondition(lambda self: self.live())
    @rule(pick=PICK, hours=st.integers(-24, 24))
    def advance_near_period_end(self, pick: int, hours: int) -> None:
        """Around a period end, where the cycle invoice sweeps the pending lines (the time only random
        hours would seldom reach in a few steps)."""
        sub_id = choose(self.live(), pick, "subscription")
        if sub_id is None:  # the wait ended it
            return
        sub = checked(self.get(f"/subscriptions/{sub_id}"))
        self.advance_to(sub["current_period_end"] + hours * 3600)

    def wait(self, hours: int) -> None:
        if hours:
            self.advance_to(self.now() + hours * 3600)

    def advance_to(self, to: int) -> None:
        now = self.now()
        to = min(to, self.start + HORIZON)
        if to <= now:
            return
        answer = checked(self.send("POST", "/test_helpers/clock/advance", {"to": to}))
        assert answer["now"] == to, answer

    # -- invariants -----------------------------------------------------------------------------------

    @invariant()
    def cheap_invariants(self) -> None:
        """After every step: statuses (a non-ACTIVE one makes the subscription's lower bound loose), the
        invoices' arithmetic and lines, one invoice per period."""
        for sub in every_page(self.client, self.merchant, "/subscriptions", customer_id=self.customer_id):
            self.statuses[sub["id"]] = sub["status"]
            if sub["status"] != "ACTIVE" and sub["id"] in self.records:
                self.records[sub["id"]].dirty = True
        invoices = every_page(self.client, self.merchant, "/invoices")
        snap = BillingSnapshot(invoices, [], {}, [], [], {}, [])
        self.check(
            "invoice_arithmetic", checks.check_invoice_arithmetic, snap, {self.tax_rate: TAX_PERCENTAGE}
        )
        self.check("line_amounts", check_line_amounts, invoices, self.amounts)
        self.check("one_invoice_per_period", checks.check_one_invoice_per_period, snap)

    def check(self, name: str, function: Any, *args: Any) -> None:
        if name not in SKIP:
            function(*args)

    def teardown(self) -> None:
        """Every invariant, on everything the merchant can read."""
        snap = snapshot(self.client, self.merchant, [self.customer_id])
        failed_subs = {
            inv["subscription_id"]
            for c in snap.invoice_charges()
            if c["status"] == "failed"
            for inv in snap.invoices
            if inv["id"] == c["invoice"]
        }
        self.check(
            "invoice_arithmetic", checks.check_invoice_arithmetic, snap, {self.tax_rate: TAX_PERCENTAGE}
        )
        self.check("line_amounts", check_line_amounts, snap.invoices, self.amounts)
        for name, function in checks.CHECKS.items():
            self.check(name, function, snap)
        for sub_id, record in self.records.items():
            record.dirty = record.dirty or sub_id in failed_subs
            mine = [inv for inv in snap.invoices if inv["subscription_id"] == sub_id]
            bounds = tuple(name for name in BOUNDS if name not in SKIP)
            check_coverage(record, mine, self.base_prices, bounds)


def diff(before: tuple[Any, ...], after: tuple[Any, ...]) -> list[str]:
    names = ("subscriptions", "invoices", "charges", "customer")
    return [f"{name}: {b} → {a}" for name, b, a in zip(names, before, after, strict=True) if a != b]


@pytest.mark.timeout(300 + EXAMPLES * STEPS * 3)
def test_billing_invariants_hold_for_random_sequences(unthrottled_gateway: RunningProcess) -> None:
    with httpx.Client(base_url=unthrottled_gateway.base_url, timeout=30.0) as client:
        BillingMachine.client = client
        run_state_machine_as_test(BillingMachine, settings=settings.get_profile("billing-properties"))
