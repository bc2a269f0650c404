"""The billing run on the real database and Redis: a period billed once, the dunning schedule to the
end, two cores running the run at once billing each subscription exactly once, and a new default card
retrying what is owed."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest

from core_server.billing.domain.invoice import InvoiceStatus
from core_server.billing.domain.subscription_status import SubscriptionStatus
from core_server.bootstrap import Core
from core_server.config import Settings
from core_server.kernel.application.clocks import SettableClock
from core_server.payments.domain.card import CardInput
from tests.integration.core.factories import new_owner
from tests.integration.core.test_subscription_service import DUNNING_CARD, customer_with_card, monthly_price

pytestmark = pytest.mark.integration

DAY = timedelta(days=1)


async def count(core: Core, sql: str, *params: object) -> int:
    async with core.pool.connection() as conn:
        row = await (await conn.execute(sql, params)).fetchone()
    assert row is not None
    return int(row["n"])


async def subscribe(core: Core, owner: object, card: str = "4242424242424242") -> str:
    customer_id = await customer_with_card(core, owner, card)  # type: ignore[arg-type]
    created = await core.subscriptions.create(
        owner,  # type: ignore[arg-type]
        customer_id=customer_id,
        price_id=await monthly_price(core, owner),  # type: ignore[arg-type]
        collection_method=None,
        tax_rate_id=None,
        metadata={},
    )
    return created.id


async def test_a_period_end_is_billed_once_and_the_period_advances(core: Core, clock: SettableClock) -> None:
    owner = await new_owner(core)
    subscription_id = await subscribe(core, owner)
    before = await core.subscriptions.get(owner, subscription_id)
    clock.advance(32 * DAY)
    assert await core.sweep("billing").run_once() >= 1
    after = await core.subscriptions.get(owner, subscription_id)
    assert after.current_period_start == before.current_period_end
    assert after.status is SubscriptionStatus.ACTIVE
    page = await core.invoices.list(
        owner, subscription_id=subscription_id, customer_id=None, status="PAID", limit=10, starting_after=None
    )
    assert len(page.items) == 2
    assert await core.sweep("billing").run_once() == 0  # nothing more is due
    credits = await count(
        core, "SELECT count(*) AS n FROM invoice_credits WHERE invoice_id = %s", page.items[0].id
    )
    assert credits == 1
    async with core.pool.connection() as conn:
        rows = await (
            await conn.execute(
                "SELECT payload FROM events WHERE type = 'invoice.upcoming' AND object_id = %s",
                (subscription_id,),
            )
        ).fetchall()
    [upcoming] = [row["payload"]["data"]["object"] for row in rows]
    # Three days ahead it announced the invoice the period end then made: same period, same total.
    assert (upcoming["id"], upcoming["status"], upcoming["total_cents"]) == (None, "DRAFT", 2000)
    assert upcoming["period_start"] == int(before.current_period_end.timestamp())


async def test_dunning_runs_to_unpaid_and_cancels_thirty_days_later(core: Core, clock: SettableClock) -> None:
    owner = await new_owner(core)
    subscription_id = await subscribe(core, owner, DUNNING_CARD)
    invoice_id = (await core.subscriptions.get(owner, subscription_id)).latest_invoice
    assert invoice_id is not None
    for days, attempts in ((3, 2), (8, 3)):
        clock.advance((days - (0 if days == 3 else 3)) * DAY)
        await core.sweep("billing").run_once()
        invoice = await core.invoices.get(owner, invoice_id)
        assert (invoice.status, invoice.attempt_count) == (InvoiceStatus.OPEN, attempts)
    clock.advance(7 * DAY)  # day 15: the last retry fails
    await core.sweep("billing").run_once()
    assert (await core.invoices.get(owner, invoice_id)).status is InvoiceStatus.UNCOLLECTIBLE
    assert (await core.subscriptions.get(owner, subscription_id)).status is SubscriptionStatus.UNPAID
    clock.advance(30 * DAY)
    await core.sweep("billing").run_once()
    canceled = await core.subscriptions.get(owner, subscription_id)
    assert (canceled.status, canceled.cancel_reason) == (SubscriptionStatus.CANCELED, "payment_failed")
    assert await count(core, "SELECT count(*) AS n FROM charges WHERE invoice_id = %s", invoice_id) == 4


async def test_a_new_default_card_retries_the_open_invoice_at_once(core: Core) -> None:
    owner = await new_owner(core)
    subscription_id = await subscribe(core, owner, DUNNING_CARD)
    subscription = await core.subscriptions.get(owner, subscription_id)
    assert subscription.status is SubscriptionStatus.PAST_DUE
    await core.payment_methods.attach(
        owner,
        subscription.customer_id,
        type_="card",
        card=CardInput(number="4242424242424242", exp_month=12, exp_year=2099, cvc="123"),
        paypal_email=None,
        set_default=True,
    )
    recovered = await core.subscriptions.get(owner, subscription_id)
    assert recovered.status is SubscriptionStatus.ACTIVE
    assert recovered.latest_invoice is not None
    assert (await core.invoices.get(owner, recovered.latest_invoice)).status is InvoiceStatus.PAID


async def test_two_cores_billing_at_once_bill_each_subscription_exactly_once(
    core: Core, core_settings: Settings, clock: SettableClock
) -> None:
    from core_server.bootstrap import build_core

    second = await build_core(core_settings, clock)
    try:
        owner = await new_owner(core)
        ids = [await subscribe(core, owner) for _ in range(12)]
        clock.advance(32 * DAY)
        await asyncio.gather(core.sweep("billing").run_once(), second.sweep("billing").run_once())
        for subscription_id in ids:
            invoices = await count(
                core, "SELECT count(*) AS n FROM invoices WHERE subscription_id = %s", subscription_id
            )
            assert invoices == 2, subscription_id
        charges = await count(
            core,
            "SELECT count(*) AS n FROM charges c JOIN invoices i ON i.id = c.invoice_id"
            " WHERE i.subscription_id = ANY(%s)",
            ids,
        )
        assert charges == 24
    finally:
        await second.close()


async def test_a_new_card_and_a_scheduled_retry_never_share_an_attempt_number(
    core: Core, clock: SettableClock
) -> None:
    """DESIGN §10.4: both retries run through the subscription's actor, so however they interleave each
    attempt has its own number and its own charge — the new card's is never answered with the old
    card's declined charge of the same number."""
    owner = await new_owner(core)
    subscription_id = await subscribe(core, owner, DUNNING_CARD)
    subscription = await core.subscriptions.get(owner, subscription_id)
    invoice_id = subscription.latest_invoice
    assert invoice_id is not None
    clock.advance(3 * DAY)  # the first scheduled retry is due
    good = CardInput(number="4242424242424242", exp_month=12, exp_year=2099, cvc="123")
    await asyncio.gather(
        core.sweep("billing").run_once(),
        core.payment_methods.attach(
            owner, subscription.customer_id, type_="card", card=good, paypal_email=None, set_default=True
        ),
    )
    paid = await core.invoices.get(owner, invoice_id)
    assert paid.status is InvoiceStatus.PAID
    attempts = await count(core, "SELECT count(*) AS n FROM charges WHERE invoice_id = %s", invoice_id)
    distinct = await count(
        core, "SELECT count(DISTINCT invoice_attempt) AS n FROM charges WHERE invoice_id = %s", invoice_id
    )
    assert attempts == distinct == paid.attempt_count
    assert (await core.subscriptions.get(owner, subscription_id)).status is SubscriptionStatus.ACTIVE
