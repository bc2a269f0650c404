"""Subscriptions through the core's use cases on the real database and Redis: the first period invoiced
and charged at once, the dunning card's PAST_DUE, moves through the actor, and a crash between the
invoice and its charge recovered without charging twice."""

from __future__ import annotations

import asyncio
import uuid
from datetime import timedelta

import pytest

from core_server.billing.domain.invoice import InvoiceStatus
from core_server.billing.domain.subscription_status import SubscriptionStatus
from core_server.bootstrap import Core
from core_server.kernel.application.clocks import SettableClock
from core_server.kernel.application.owner import Owner
from core_server.kernel.domain.errors import ParameterInvalid, StateConflict
from core_server.payments.domain.card import CardInput
from core_server.payments.domain.charge import ChargeStatus
from tests.integration.core.factories import new_owner

pytestmark = pytest.mark.integration

GOOD_CARD = "4242424242424242"
DUNNING_CARD = "4000000000000341"


async def customer_with_card(core: Core, owner: Owner, number: str | None = GOOD_CARD) -> str:
    customer = await core.customers.create(
        owner, email=f"{uuid.uuid4().hex[:10]}@example.com", name=None, address=None, metadata={}
    )
    if number is not None:
        await core.payment_methods.attach(
            owner,
            customer.id,
            type_="card",
            card=CardInput(number=number, exp_month=12, exp_year=2099, cvc="123"),
            paypal_email=None,
            set_default=True,
        )
    return customer.id


async def monthly_price(core: Core, owner: Owner, amount: int = 2000, trial: int | None = None) -> str:
    plan = await core.plans.create_plan(owner, name="Pro")
    price = await core.plans.create_price(
        owner,
        plan.id,
        amount_cents=amount,
        currency="usd",
        interval="monthly",
        interval_count=1,
        trial_period_days=trial,
    )
    return price.id


async def test_without_a_trial_the_first_period_is_invoiced_and_charged_at_once(core: Core) -> None:
    owner = await new_owner(core)
    customer_id = await customer_with_card(core, owner)
    price_id = await monthly_price(core, owner)
    subscription = await core.subscriptions.create(
        owner,
        customer_id=customer_id,
        price_id=price_id,
        collection_method=None,
        tax_rate_id=None,
        metadata={},
    )
    assert subscription.status is SubscriptionStatus.ACTIVE
    assert subscription.latest_invoice is not None
    invoice = await core.invoices.get(owner, subscription.latest_invoice)
    assert (invoice.status, invoice.total_cents, invoice.attempt_count) == (InvoiceStatus.PAID, 2000, 1)
    assert invoice.charge_id is not None
    charge = await core.charges.get(owner, invoice.charge_id)
    assert (
        charge.status is ChargeStatus.CAPTURED and charge.amount == 2000 and charge.invoice_id == invoice.id
    )


async def test_the_dunning_card_leaves_it_past_due_with_the_first_retry_in_three_days(
    core: Core, clock: SettableClock
) -> None:
    owner = await new_owner(core)
    customer_id = await customer_with_card(core, owner, DUNNING_CARD)
    price_id = await monthly_price(core, owner)
    subscription = await core.subscriptions.create(
        owner,
        customer_id=customer_id,
        price_id=price_id,
        collection_method=None,
        tax_rate_id=None,
        metadata={},
    )
    assert subscription.status is SubscriptionStatus.PAST_DUE
    assert subscription.latest_invoice is not None
    invoice = await core.invoices.get(owner, subscription.latest_invoice)
    assert invoice.status is InvoiceStatus.OPEN and invoice.attempt_count == 1
    assert invoice.next_attempt_at == subscription.created + timedelta(days=3)
    assert invoice.charge_id is not None
    assert (await core.charges.get(owner, invoice.charge_id)).status is ChargeStatus.FAILED
    with pytest.raises(StateConflict):
        await core.subscriptions.pause(owner, subscription.id)


async def test_no_default_payment_method_is_refused_without_a_trial_and_accepted_with_one(core: Core) -> None:
    owner = await new_owner(core)
    customer_id = await customer_with_card(core, owner, None)
    with pytest.raises(ParameterInvalid) as refused:
        await core.subscriptions.create(
            owner,
            customer_id=customer_id,
            price_id=await monthly_price(core, owner),
            collection_method=None,
            tax_rate_id=None,
            metadata={},
        )
    assert refused.value.param == "customer_id"
    trialing = await core.subscriptions.create(
        owner,
        customer_id=customer_id,
        price_id=await monthly_price(core, owner, trial=14),
        collection_method=None,
        tax_rate_id=None,
        metadata={},
    )
    assert trialing.status is SubscriptionStatus.TRIALING and trialing.latest_invoice is None


async def test_concurrent_item_adds_through_the_actor_each_land_once(
    core: Core, clock: SettableClock
) -> None:
    owner = await new_owner(core)
    customer_id = await customer_with_card(core, owner)
    price_id = await monthly_price(core, owner)
    seat = await monthly_price(core, owner, amount=500)
    subscription = await core.subscriptions.create(
        owner,
        customer_id=customer_id,
        price_id=price_id,
        collection_method=None,
        tax_rate_id=None,
        metadata={},
    )
    clock.advance(timedelta(days=10))
    items = await asyncio.gather(
        *(
            core.subscriptions.add_item(
                owner, subscription.id, price_id=seat, quantity=n + 1, proration_behavior=None, metadata={}
            )
            for n in range(10)
        )
    )
    after = await core.subscriptions.get(owner, subscription.id)
    assert sorted(item.quantity for item in after.items if not item.is_base_item) == list(range(1, 11))
    assert {item.id for item in items} <= {item.id for item in after.items}
    async with core.pool.connection() as conn:
        rows = await (
            await conn.execute(
                "SELECT count(*) AS n FROM pending_prorations WHERE subscription_id = %s", (subscription.id,)
            )
        ).fetchone()
    assert rows is not None and rows["n"] == 10


async def test_an_invoice_left_open_by_a_crash_is_charged_once_by_the_next_request(core: Core) -> None:
    owner = await new_owner(core)
    customer_id = await customer_with_card(core, owner)
    subscription = await core.subscriptions.create(
        owner,
        customer_id=customer_id,
        price_id=await monthly_price(core, owner),
        collection_method=None,
        tax_rate_id=None,
        metadata={},
    )
    seat = await monthly_price(core, owner, amount=3000)
    # As if the core died after the turn that opened the proration invoice, before its charge.
    collector = core.subscriptions._collector  # noqa: SLF001 - the seam the crash cuts
    core_collect = collector.collect
    collector.collect = lambda owner, sub, *rest, **kw: asyncio.sleep(0, sub)  # type: ignore[method-assign]
    try:
        await core.subscriptions.add_item(
            owner,
            subscription.id,
            price_id=seat,
            quantity=1,
            proration_behavior="charge_immediately",
            metadata={},
        )
    finally:
        collector.collect = core_collect  # type: ignore[method-assign]
    page = await core.invoices.list(
        owner, subscription_id=subscription.id, customer_id=None, status="OPEN", limit=10, starting_after=None
    )
    [stranded] = page.items
    assert stranded.attempt_count == 0
    await asyncio.gather(
        *(
            core.subscriptions.update(
                owner,
                subscription.id,
                price_id=None,
                proration_behavior=None,
                metadata={"n": str(n)},
                tax_rate_id=None,
            )
            for n in range(3)
        )
    )
    paid = await core.invoices.get(owner, stranded.id)
    assert paid.status is InvoiceStatus.PAID and paid.attempt_count == 1
    async with core.pool.connection() as conn:
        rows = await (
            await conn.execute("SELECT count(*) AS n FROM charges WHERE invoice_id = %s", (stranded.id,))
        ).fetchone()
    assert rows is not None and rows["n"] == 1


async def test_a_cancel_refund_cut_short_by_a_crash_is_finished_once_by_the_billing_run(
    core: Core, clock: SettableClock
) -> None:
    """DESIGN §10.2: the cancel and the refund it owes are saved together; a core that dies before the
    refund leaves it pending, and the billing run makes it — once, whoever else tries too."""
    owner = await new_owner(core)
    subscription = await core.subscriptions.create(
        owner,
        customer_id=await customer_with_card(core, owner),
        price_id=await monthly_price(core, owner),
        collection_method=None,
        tax_rate_id=None,
        metadata={},
    )
    clock.advance(timedelta(days=10))
    refunds = core.subscriptions._cancel_refunds  # noqa: SLF001 - the seam the crash cuts
    made = refunds.make

    async def crash(*_: object) -> str | None:
        raise RuntimeError("the core died here")

    refunds.make = crash  # type: ignore[method-assign, assignment]
    try:
        with pytest.raises(RuntimeError):
            await core.subscriptions.cancel(owner, subscription.id, at_period_end=False, prorate=True)
    finally:
        refunds.make = made  # type: ignore[method-assign]
    stranded = await core.subscriptions.get(owner, subscription.id)
    assert stranded.status is SubscriptionStatus.CANCELED and stranded.pending_cancel_refund is not None
    owed = stranded.pending_cancel_refund.amount_cents
    clock.advance(timedelta(minutes=2))
    await core.sweep("billing").run_once()
    finished = await core.subscriptions.get(owner, subscription.id)
    assert finished.pending_cancel_refund is None and finished.cancel_refund is not None
    # Finishing again (a retry of the request racing the run) makes no second refund.
    again = await core.subscriptions.finish_cancel_refund(owner, subscription.id)
    assert again.cancel_refund == finished.cancel_refund
    paid = await core.invoices.get(owner, subscription.latest_invoice or "")
    charged = await core.charges.get(owner, paid.charge_id or "")
    assert [(r.id, r.amount) for r in charged.refunds] == [(finished.cancel_refund, owed)]
