"""Tax on the real database (DESIGN §10.2, issue 21): a charge that paid an invoice keeps its tax share,
its refunds and disputes hand that share back on their balance transactions, and reconciliation
recomputes every share from the movements — and names one that was changed."""

from __future__ import annotations

from dataclasses import replace

import pytest

from core_server.bootstrap import Core
from core_server.kernel.application.owner import Owner
from core_server.ledger.domain.reconciliation import FindingKind
from core_server.payments.domain.charge import Charge
from core_server.payments.domain.dispute import Dispute
from core_server.payments.domain.refund import Refund
from tests.integration.core.factories import captured_charge, new_owner
from tests.integration.core.test_invoice_charges import new_invoice_id, request
from tests.integration.core.test_ledger import rows_of, shape
from tests.integration.core.test_subscription_service import customer_with_card, monthly_price

pytestmark = pytest.mark.integration


async def refund(core: Core, owner: Owner, charge_id: str, amount: int | None) -> Refund:
    result = await core.charges.refund(owner, charge_id, amount, None)
    assert isinstance(result, tuple)
    return result[0]


async def dispute(core: Core, owner: Owner, charge_id: str) -> Dispute:
    opened = await core.charges.open_dispute(owner, charge_id)
    assert isinstance(opened, Dispute)
    return opened


async def taxed_invoice_charge(core: Core, owner: Owner, amount: int, tax: int) -> Charge:
    """A charge of `amount` for an invoice whose tax share is `tax` (no invoice row: the charge alone)."""
    made = await core.invoice_charges.attempt(
        replace(request(owner, new_invoice_id(), amount=amount), tax_cents=tax)
    )
    assert made.tax == tax
    return made


async def test_the_tax_share_is_stored_with_the_charge_and_read_back_by_every_path(core: Core) -> None:
    owner = await new_owner(core)
    charge = await taxed_invoice_charge(core, owner, 10_800, 800)
    assert (await core.charges.get(owner, charge.id)).tax == 800
    page = await core.charges.list(
        owner, limit=10, status=None, created_after=None, created_before=None, starting_after=None
    )
    assert [(c.id, c.tax) for c in page.items] == [(charge.id, 800)]
    plain = await captured_charge(core, owner, amount=5_000)
    assert (await core.charges.get(owner, plain.id)).tax == 0


async def test_two_half_refunds_return_half_the_tax_each_and_reconcile(core: Core) -> None:
    owner = await new_owner(core)
    charge = await taxed_invoice_charge(core, owner, 10_800, 800)
    first = await refund(core, owner, charge.id, 5_400)
    second = await refund(core, owner, charge.id, None)
    assert shape(await rows_of(core.pool, owner.merchant_id)) == [
        ("refund", first.id, -5_400, 0, -400, -5_000),
        ("refund", second.id, -5_400, 0, -400, -5_000),
    ]
    assert (await core.ledger.reconcile()).ok


async def test_a_one_cent_tax_is_returned_once_over_two_refunds(core: Core) -> None:
    """Tax 1 of 50 refunded 25 + 25: the first refund's 0.5 rounds up to the cent, the second returns 0."""
    owner = await new_owner(core)
    charge = await taxed_invoice_charge(core, owner, 50, 1)
    first = await refund(core, owner, charge.id, 25)
    second = await refund(core, owner, charge.id, 25)
    assert shape(await rows_of(core.pool, owner.merchant_id)) == [
        ("refund", first.id, -25, 0, -1, -24),
        ("refund", second.id, -25, 0, 0, -25),
    ]
    assert (await core.ledger.reconcile()).ok


async def test_a_dispute_after_a_partial_refund_returns_the_rest_of_the_tax_and_a_won_one_takes_it_again(
    core: Core,
) -> None:
    owner = await new_owner(core)
    charge = await taxed_invoice_charge(core, owner, 10_800, 800)
    refunded = await refund(core, owner, charge.id, 1_000)  # 74.07… → 74
    opened = await dispute(core, owner, charge.id)
    await core.charges.close_dispute_by_id(owner, opened.id, "won")
    assert shape(await rows_of(core.pool, owner.merchant_id)) == [
        ("refund", refunded.id, -1_000, 0, -74, -926),
        ("dispute", opened.id, -9_800, 1_500, -726, -10_574),
        ("dispute_won", opened.id, 9_800, -1_500, 726, 10_574),
    ]
    assert (await core.ledger.reconcile()).ok


async def test_a_paid_invoice_refunded_in_full_costs_the_merchant_only_the_fee(core: Core) -> None:
    """The audit's case: $100 + 8 % → 10,800 charged, booked 9,657 after fee 343 and tax 800; refunded
    in full, the merchant ends at −343, not −1,143."""
    owner = await new_owner(core)
    customer_id = await customer_with_card(core, owner)
    price_id = await monthly_price(core, owner, amount=10_000)
    rate = await core.tax_rates.create(owner, percentage="8", display_name="Sales tax", inclusive=False)
    subscription = await core.subscriptions.create(
        owner,
        customer_id=customer_id,
        price_id=price_id,
        collection_method=None,
        tax_rate_id=rate.id,
        metadata={},
    )
    assert subscription.latest_invoice is not None
    invoice = await core.invoices.get(owner, subscription.latest_invoice)
    assert invoice.charge_id is not None and (invoice.total_cents, invoice.tax_cents) == (10_800, 800)
    back = await refund(core, owner, invoice.charge_id, None)
    rows = await rows_of(core.pool, owner.merchant_id)
    assert shape(rows) == [
        ("subscription", invoice.id, 10_800, 343, 800, 9_657),
        ("refund", back.id, -10_800, 0, -800, -10_000),
    ]
    assert sum(r["net"] for r in rows) == -343
    assert (await core.ledger.reconcile()).ok


async def test_reconciliation_names_a_refund_whose_tax_was_changed(core: Core) -> None:
    owner = await new_owner(core)
    charge = await taxed_invoice_charge(core, owner, 10_800, 800)
    kept = await refund(core, owner, charge.id, 5_400)
    changed = await refund(core, owner, charge.id, 5_400)
    async with core.pool.connection() as conn:
        # Still adds up (net = amount − fee − tax), but hands back 1 cent more than was collected.
        await conn.execute(
            "UPDATE balance_transactions SET tax = tax - 1, net = net + 1 WHERE source = %s", (changed.id,)
        )
    report = await core.ledger.reconcile()
    found = {(f.kind, f.source) for f in report.findings if f.merchant_id == owner.merchant_id}
    assert found == {(FindingKind.AMOUNT_MISMATCH, changed.id)}
    assert kept.id not in {f.source for f in report.findings}
