"""The billing invariants of docs/billing-invariants.md as assertions over a `BillingSnapshot` (what the
API shows), one function per invariant, each named in the document.

Money is recomputed with `Fraction`s and DESIGN's half-up rounding, never floats. Every assertion
message carries the objects it is about, so a failing hypothesis example says which invoice, charge or
row broke which rule.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from tests.e2e.billing_reads import JSON, BillingSnapshot

PERIOD_REASONS = ("subscription_create", "subscription_cycle", "subscription_resume")
"""Invoices of a whole period; `subscription_update` invoices (always_invoice, charge_immediately)
share their period with the period invoice and are not unique per period."""

CHARGED = ("captured", "partially_refunded", "refunded", "disputed")
"""Statuses of a charge whose money moved (it was captured)."""

MINIMUM_CHARGE = 50
"""DESIGN §9: amount_cents < 50 is `amount_too_small`; §10.1 carries a due of 1–49."""

FEE_RATE = Fraction(29, 1000)
FEE_FIXED = 30
DISPUTE_FEE = 1500


def half_up(value: Fraction) -> int:
    """round_half_up, away from zero for negatives (DESIGN §10.1: tax on a negative subtotal)."""
    magnitude = int(abs(value) + Fraction(1, 2))
    return -magnitude if value < 0 else magnitude


def exclusive_tax(subtotal: int, percentage: Fraction) -> int:
    return half_up(subtotal * percentage / 100)


def where(obj: JSON) -> str:
    """A short name of an object for assertion messages."""
    keys = ("id", "status", "billing_reason", "amount", "amount_cents", "total_cents", "type", "source")
    return str({k: obj[k] for k in keys if k in obj})


# -- invoices ------------------------------------------------------------------------------------------


def check_invoice_arithmetic(snap: BillingSnapshot, tax_percentages: dict[str, Fraction]) -> None:
    """subtotal = Σ lines; tax = half-up(subtotal × p / 100) for the exclusive rates used here (0 without a
    rate); total = subtotal + tax."""
    for inv in snap.invoices:
        lines_sum = sum(line["amount_cents"] for line in inv["lines"])
        assert inv["subtotal_cents"] == lines_sum, f"subtotal ≠ Σ lines: {where(inv)} {inv['lines']}"
        rate = inv.get("tax_rate_id")
        expected_tax = exclusive_tax(inv["subtotal_cents"], tax_percentages[rate]) if rate else 0
        assert inv["tax_cents"] == expected_tax, f"tax ≠ half-up(subtotal × p): {where(inv)} {inv}"
        assert inv["total_cents"] == inv["subtotal_cents"] + inv["tax_cents"], f"total: {where(inv)}"


def check_one_invoice_per_period(snap: BillingSnapshot) -> None:
    periods = Counter(
        (inv["subscription_id"], inv["period_start"])
        for inv in snap.invoices
        if inv["billing_reason"] in PERIOD_REASONS and inv["status"] != "VOID"
    )
    twice = {key: n for key, n in periods.items() if n > 1}
    assert not twice, f"more than one invoice for a (subscription, period): {twice}"


def charges_by_invoice(snap: BillingSnapshot) -> dict[str, list[JSON]]:
    found: dict[str, list[JSON]] = defaultdict(list)
    for charge in snap.invoice_charges():
        found[charge["invoice"]].append(charge)
    return found


NOTHING_TO_CHARGE = frozenset({"amount_too_large", "no_payment_method"})
"""The failure codes of an attempt that wrote no charge (billing/application/invoice_collection.py)."""


def check_one_charge_per_attempt(snap: BillingSnapshot) -> None:
    """Each attempt is at most one charge — none only when nothing could be charged (an amount above the
    largest charge, no payment method), which the invoice names in `failure_code` — at most one of them
    captured, and a PAID invoice's `charge` is that captured one."""
    by_invoice = charges_by_invoice(snap)
    known = {inv["id"] for inv in snap.invoices}
    assert set(by_invoice) <= known, f"charges of unknown invoices: {set(by_invoice) - known}"
    for inv in snap.invoices:
        charges = by_invoice.get(inv["id"], [])
        uncharged = inv["attempt_count"] - len(charges)
        assert uncharged >= 0, f"{len(charges)} charges for {inv['attempt_count']} attempts: {where(inv)}"
        assert uncharged == 0 or inv.get("failure_code") in NOTHING_TO_CHARGE, (
            f"{len(charges)} charges for {inv['attempt_count']} attempts: {where(inv)}"
            f" {[where(c) for c in charges]}"
        )
        captured = [c for c in charges if c["status"] in CHARGED]
        assert len(captured) <= 1, f"an invoice paid twice: {where(inv)} {[where(c) for c in captured]}"
        if captured:
            assert inv["status"] == "PAID" and inv["charge"] == captured[0]["id"], f"{where(inv)} {captured}"


def check_amount_due(snap: BillingSnapshot) -> None:
    """DESIGN §10.1: amount_due = total − credit_applied ≥ 0 (0 when total ≤ 0); PAID with a charge iff
    amount_due ≥ 50, and that charge is for exactly amount_due."""
    by_invoice = charges_by_invoice(snap)
    for inv in snap.invoices:
        assert "amount_due_cents" in inv and "credit_applied_cents" in inv, (
            f"invoice without DESIGN §10.1's credit_applied_cents/amount_due_cents: {where(inv)}"
        )
        total, applied, due = inv["total_cents"], inv["credit_applied_cents"], inv["amount_due_cents"]
        if inv["status"] in ("DRAFT", "VOID"):
            continue
        if total <= 0:
            assert (inv["status"], applied, due, inv["charge"]) == ("PAID", 0, 0, None), f"total ≤ 0: {inv}"
            continue
        assert due == total - applied and due >= 0 and applied <= total, f"amount_due: {inv}"
        for charge in by_invoice.get(inv["id"], []):
            assert charge["amount"] == due, f"a charge not for the amount due: {where(charge)} {where(inv)}"
        if inv["status"] == "PAID":
            assert (inv["charge"] is not None) == (due >= MINIMUM_CHARGE), (
                f"PAID with a charge iff due ≥ 50: {inv}"
            )


# -- customer credit (DESIGN §10.1) --------------------------------------------------------------------


def check_customer_credit(snap: BillingSnapshot) -> None:
    """Per customer and currency: the balance is the sum of its signed transactions, each transaction's
    ending balance chains, each transaction matches its invoice, and credit is conserved:
    Σ invoice_credit + Σ adjustment = Σ credit_applied_cents of invoices + Σ dues carried + balance."""
    for customer_id, view in snap.customers.items():
        assert view.transactions is not None, "GET /customers/{id}/balance-transactions does not exist"
        assert "credit_balance" in view.customer, f"customer without credit_balance: {view.customer}"
        balance: dict[str, int] = view.customer["credit_balance"]
        invoices = {inv["id"]: inv for inv in snap.invoices if inv["customer_id"] == customer_id}
        running: dict[str, int] = defaultdict(int)
        by_type: dict[tuple[str, str], int] = defaultdict(int)
        applied_per_invoice: dict[str, int] = defaultdict(int)
        carried_per_invoice: dict[str, int] = defaultdict(int)
        credited_per_invoice: dict[str, int] = defaultdict(int)
        for txn in reversed(view.transactions):  # oldest first
            currency, amount = txn["currency"], txn["amount_cents"]
            running[currency] += amount
            assert txn["ending_balance_cents"] == running[currency], f"ending balances do not chain: {txn}"
            assert amount != 0, f"a zero customer balance transaction: {txn}"
            by_type[(currency, txn["type"])] += amount
            inv_id = txn["invoice_id"]
            if txn["type"] == "adjustment":
                assert inv_id is None, txn
                continue
            assert inv_id in invoices, f"a credit transaction of an unknown invoice: {txn}"
            assert invoices[inv_id]["currency"] == currency, txn
            {
                "invoice_credit": credited_per_invoice,
                "applied_to_invoice": applied_per_invoice,
                "carried_amount": carried_per_invoice,
            }[txn["type"]][inv_id] += amount
        shown = {c: v for c, v in balance.items() if v != 0}
        summed = {c: v for c, v in running.items() if v != 0}
        assert shown == summed, f"credit_balance {balance} ≠ Σ transactions {dict(running)} ({customer_id})"
        owed = [value for value in balance.values() if value < -(MINIMUM_CHARGE - 1)]
        assert not owed, f"more than a carried due owed: {balance}"
        for inv in invoices.values():
            iid, total = inv["id"], inv["total_cents"]
            if inv["status"] == "VOID":
                # A voided invoice gives back the credit it took, once: applied and given back cancel out.
                taken = inv["credit_applied_cents"]
                assert applied_per_invoice.get(iid, 0) == -taken, f"applied to a void invoice: {where(inv)}"
                assert credited_per_invoice.get(iid, 0) == taken, (
                    f"void invoice's credit not given back: {inv}"
                )
                continue
            if inv["status"] == "DRAFT":
                continue
            credited = -total if total < 0 else 0
            assert credited_per_invoice.get(iid, 0) == credited, f"invoice_credit ≠ −total: {where(inv)}"
            assert applied_per_invoice.get(iid, 0) == -inv["credit_applied_cents"], f"applied: {where(inv)}"
            due = inv["amount_due_cents"]
            carried = -due if inv["status"] == "PAID" and 0 < due < MINIMUM_CHARGE else 0
            assert carried_per_invoice.get(iid, 0) == carried, f"carried ≠ −due: {where(inv)}"
        currencies = {c for c, _ in by_type} | set(balance)
        for currency in currencies:
            mine = [inv for inv in invoices.values() if inv["currency"] == currency]
            mine = [inv for inv in mine if inv["status"] not in ("DRAFT", "VOID")]
            issued = sum(-inv["total_cents"] for inv in mine if inv["total_cents"] < 0)
            adjusted = by_type[(currency, "adjustment")]
            applied = sum(inv["credit_applied_cents"] for inv in mine)
            dues_carried = sum(
                inv["amount_due_cents"]
                for inv in mine
                if inv["status"] == "PAID" and 0 < inv["amount_due_cents"] < MINIMUM_CHARGE
            )
            held = balance.get(currency, 0)
            assert issued + adjusted == applied + dues_carried + held, (
                f"credit not conserved in {currency}: issued {issued} + adjusted {adjusted}"
                f" ≠ applied {applied} + carried {dues_carried} + balance {held} ({customer_id})"
            )


# -- the merchant's ledger (DESIGN §9, §10.2) ------------------------------------------------------------


def check_balance_is_sum_of_rows(snap: BillingSnapshot) -> None:
    """Per currency and status: GET /balance = Σ net of the rows; fee + tax + net = amount on every row."""
    sums: dict[tuple[str, str], int] = defaultdict(int)
    for row in snap.balance_transactions:
        assert row["fee"] + row["tax"] + row["net"] == row["amount"], f"fee + tax + net ≠ amount: {row}"
        sums[(row["status"], row["currency"])] += row["net"]
    for status in ("available", "pending"):
        shown = {entry["currency"]: entry["amount"] for entry in snap.balance[status]}
        for currency in {c for s, c in sums if s == status} | set(shown):
            summed = sums.get((status, currency), 0)
            assert shown.get(currency, 0) == summed, (
                f"{status} {currency}: balance {shown.get(currency, 0)} ≠ Σ net {summed}"
            )


def rows_by_source(snap: BillingSnapshot) -> dict[str, list[JSON]]:
    found: dict[str, list[JSON]] = defaultdict(list)
    for row in snap.balance_transactions:
        found[row["source"]].append(row)
    return found


def subscription_row_expected(invoice: JSON, charged: int) -> tuple[int, int, int]:
    """DESIGN §10.2: (fee, tax, net) of the `subscription` row of an invoice charged `charged`."""
    total = invoice["total_cents"]
    tax = half_up(Fraction(invoice["tax_cents"] * min(charged, total), total))
    fee = min(half_up(charged * FEE_RATE + FEE_FIXED), charged - tax)
    return fee, tax, charged - fee - tax


def check_money_has_rows(snap: BillingSnapshot) -> None:
    """No money moves without its row: every captured invoice charge has one `subscription` row of what
    was charged (and no `charge` row), every refund one `refund` row of −its amount, every dispute one
    `dispute` row of −its amount (and one `dispute_won` once won); no such row without its money."""
    rows = rows_by_source(snap)
    invoices = {inv["id"]: inv for inv in snap.invoices}
    sourced = set(invoices)
    paid_by_charge = {c["invoice"] for c in snap.invoice_charges() if c["status"] in CHARGED}
    for inv in snap.invoices:
        if inv["id"] not in paid_by_charge:
            stray = [r for r in rows.get(inv["id"], []) if r["type"] == "subscription"]
            assert not stray, f"a subscription row for an invoice no charge paid: {where(inv)} {stray}"
    for charge in snap.invoice_charges():
        inv = invoices[charge["invoice"]]
        assert not [r for r in rows.get(charge["id"], []) if r["type"] == "charge"], f"charge row: {charge}"
        if charge["status"] not in CHARGED:
            continue
        subs = [r for r in rows.get(inv["id"], []) if r["type"] == "subscription"]
        assert len(subs) == 1, f"{len(subs)} subscription rows for {where(charge)} of {where(inv)}: {subs}"
        charged = charge["amount_captured"]
        assert subs[0]["amount"] == charged, f"subscription row ≠ what was charged: {subs[0]} {where(charge)}"
        for refund in charge["refunds"]:
            refund_rows = [r for r in rows.get(refund["id"], []) if r["type"] == "refund"]
            assert len(refund_rows) == 1, f"{len(refund_rows)} refund rows for {refund}"
            assert refund_rows[0]["amount"] == -refund["amount"], f"{refund_rows[0]} {refund}"
            sourced.add(refund["id"])
        dispute = charge.get("dispute")
        if dispute:
            debit = [r for r in rows.get(dispute["id"], []) if r["type"] == "dispute"]
            assert len(debit) == 1, f"{len(debit)} dispute rows for {dispute}"
            assert debit[0]["amount"] == -dispute["amount"], f"{debit[0]} {dispute}"
            won = [r for r in rows.get(dispute["id"], []) if r["type"] == "dispute_won"]
            assert len(won) == (1 if dispute["status"] == "won" else 0), f"dispute_won rows {won} {dispute}"
            sourced.add(dispute["id"])
    for source, found in rows.items():
        kinds = {r["type"] for r in found}
        if kinds & {"subscription", "refund", "dispute", "dispute_won"}:
            assert source in sourced, f"a row whose money the API does not show: {found}"


def check_row_amounts(snap: BillingSnapshot) -> None:
    """DESIGN §10.2's fee, tax and net: a `subscription` row's tax is the invoice's tax share of what was
    charged and its fee at most what is left; a refund or dispute row returns the same share of the tax
    (cumulative over a charge's refunds and dispute, as `returned_tax` in kernel/domain/ledger.py), never
    the fee."""
    rows = rows_by_source(snap)
    invoices = {inv["id"]: inv for inv in snap.invoices}
    for charge in snap.invoice_charges():
        if charge["status"] not in CHARGED:
            continue
        inv = invoices[charge["invoice"]]
        row = next(r for r in rows.get(inv["id"], []) if r["type"] == "subscription")
        assert (row["fee"], row["tax"], row["net"]) == subscription_row_expected(inv, row["amount"]), (
            f"subscription row fee/tax/net ≠ DESIGN §10.2: {row} for {where(inv)}"
        )
        returned = 0  # refunded so far, in the order the charge's actor made them (its refunds list)
        for refund in charge["refunds"]:
            got = next(r for r in rows.get(refund["id"], []) if r["type"] == "refund")
            share = -_returned_share(row, returned, refund["amount"])
            returned += refund["amount"]
            expected = {"fee": 0, "tax": share, "net": -refund["amount"] - share}
            assert {k: got[k] for k in expected} == expected, f"refund row ≠ DESIGN §10.2: {got} {refund}"
        dispute = charge.get("dispute")
        if dispute:
            debit = next(r for r in rows.get(dispute["id"], []) if r["type"] == "dispute")
            share = -_returned_share(row, returned, dispute["amount"])
            assert (debit["tax"], debit["fee"]) == (share, DISPUTE_FEE), (
                f"dispute row without its tax share (DESIGN §10.2): {debit} {dispute}"
            )


def _returned_share(row: JSON, before: int, amount: int) -> int:
    """The tax share `amount` hands back after `before` was returned, cumulative as the core's
    `returned_tax`: half-up(T × (before + amount) / A) − half-up(T × before / A), so the shares of
    several refunds add up to the tax on all they returned (never one rounding per refund)."""
    tax, charged = row["tax"], row["amount"]
    return half_up(Fraction(tax * (before + amount), charged)) - half_up(Fraction(tax * before, charged))


def check_merchant_never_pays_unreceived_tax(snap: BillingSnapshot) -> None:
    """Per invoice charge: the tax of its refund and dispute rows (won back included) never returns more
    than its subscription row received: −T ≤ Σ tax ≤ 0."""
    rows = rows_by_source(snap)
    for charge in snap.invoice_charges():
        if charge["status"] not in CHARGED:
            continue
        received = sum(r["tax"] for r in rows.get(charge["invoice"], []) if r["type"] == "subscription")
        sources = [refund["id"] for refund in charge["refunds"]]
        if charge.get("dispute"):
            sources.append(charge["dispute"]["id"])
        returned = sum(r["tax"] for s in sources for r in rows.get(s, []) if r["type"] != "subscription")
        assert -received <= returned <= 0, (
            f"tax returned {returned} of {received} received on {where(charge)}: "
            f"{[r for s in sources for r in rows.get(s, [])]}"
        )


def check_paid_events(snap: BillingSnapshot) -> None:
    """One `invoice.paid` event per PAID invoice, none for any other."""
    sent = Counter(event["data"]["object"]["id"] for event in snap.paid_events)
    paid = {inv["id"] for inv in snap.invoices if inv["status"] == "PAID"}
    assert set(sent) == paid and all(n == 1 for n in sent.values()), (
        f"invoice.paid events {dict(sent)} ≠ PAID invoices {sorted(paid)}"
    )


CHECKS: dict[str, Callable[..., Any]] = {
    "one_invoice_per_period": check_one_invoice_per_period,
    "one_charge_per_attempt": check_one_charge_per_attempt,
    "amount_due": check_amount_due,
    "customer_credit": check_customer_credit,
    "balance_is_sum_of_rows": check_balance_is_sum_of_rows,
    "money_has_rows": check_money_has_rows,
    "row_amounts": check_row_amounts,
    "merchant_never_pays_unreceived_tax": check_merchant_never_pays_unreceived_tax,
    "paid_events": check_paid_events,
}
"""The checks taking only the snapshot, by the name docs/billing-invariants.md gives them."""
