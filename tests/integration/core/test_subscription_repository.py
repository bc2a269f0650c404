"""Subscription storage on real PostgreSQL: a create is one statement (row, base item, first invoice,
events, key) or nothing; an activation takes the fence; a save writes the turn's children or, with a
stale fence, nothing; one invoice per (subscription, period); lists filter, count and page newest first."""

from __future__ import annotations

import copy
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import pytest

from core_server.billing.application.subscription_ports import InvoiceQuery, SubscriptionQuery
from core_server.billing.domain.catalog import Price
from core_server.billing.domain.customer import Customer
from core_server.billing.domain.invoice import BillingReason, InvoiceStatus, LineKind
from core_server.billing.domain.subscription import Subscription
from core_server.billing.domain.subscription_item import ItemProration, ItemStatus
from core_server.billing.domain.subscription_status import SubscriptionStatus
from core_server.billing.storage.subscription_repository import (
    PeriodAlreadyInvoiced,
    PgSubscriptionRepository,
)
from core_server.bootstrap import Core
from core_server.db.errors import StaleFence
from core_server.kernel.application.clocks import SettableClock
from core_server.kernel.application.outbox import render_events
from core_server.kernel.application.owner import Owner
from core_server.kernel.application.ports import FirstClaim, IdempotencyRequest, TurnWrite
from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.ids import IdCollision, new_id
from tests.integration.core.factories import new_owner

pytestmark = pytest.mark.integration


@dataclass
class Shop:
    owner: Owner
    price: Price
    trial_price: Price
    customer: Customer
    other_customer: Customer


async def new_shop(core: Core) -> Shop:
    owner = await new_owner(core)
    plan = await core.plans.create_plan(owner, name="Pro")
    price = await core.plans.create_price(
        owner, plan.id, amount_cents=3_000, currency="usd", interval="monthly", interval_count=1
    )
    trial_price = await core.plans.create_price(
        owner,
        plan.id,
        amount_cents=1_000,
        currency="usd",
        interval="monthly",
        interval_count=1,
        trial_period_days=14,
    )
    customers = []
    for _ in range(2):
        email = f"c{uuid.uuid4().hex[:8]}@example.com"
        customers.append(
            await core.customers.create(owner, email=email, name=None, address=None, metadata={})
        )
    return Shop(owner, price, trial_price, customers[0], customers[1])


def started(
    shop: Shop,
    now: datetime,
    *,
    price: Price | None = None,
    customer: Customer | None = None,
    key: str | None = None,
) -> Subscription:
    """A new subscription; an ACTIVE one has its first period invoiced, as the create use case does."""
    subscription = Subscription.start(
        new_id("sub_", 24),
        shop.owner.merchant_id,
        shop.owner.environment,
        (customer or shop.customer).id,
        price or shop.price,
        tax_rate_id=None,
        metadata={"plan": "pro"},
        now=now,
        idempotency_key=key,
    )
    if subscription.status is SubscriptionStatus.ACTIVE:
        subscription.open_period_invoice(BillingReason.SUBSCRIPTION_CREATE, None, now)
    return subscription


def turn(subscription: Subscription) -> TurnWrite:
    events = render_events(subscription.pending_events, {"id": subscription.id}, livemode=False)
    subscription.pending_events.clear()
    return TurnWrite(events=events)


async def rows(core: Core, query: str, *args: object) -> list[dict[str, Any]]:
    async with core.pool.connection() as conn:
        return await (await conn.execute(query, args)).fetchall()


async def created(core: Core, shop: Shop, now: datetime, **kwargs: Any) -> Subscription:
    subscription = started(shop, now, **kwargs)
    assert await PgSubscriptionRepository(core.pool).insert_new(subscription, turn(subscription), None)
    return subscription


async def test_a_create_writes_row_base_item_open_invoice_events_and_key_in_one_statement(
    core: Core, clock: SettableClock
) -> None:
    shop = await new_shop(core)
    repo = PgSubscriptionRepository(core.pool)
    now = clock.now()
    request = IdempotencyRequest(f"{shop.owner.merchant_id}:test", new_id("k-", 12), "fp")
    subscription = started(shop, now, key=request.key)
    invoice = subscription.invoices[0]
    assert await repo.insert_new(subscription, turn(subscription), FirstClaim(request, b"answer", now))

    stored = await repo.get(shop.owner.merchant_id, Environment.TEST, subscription.id)
    assert stored is not None
    assert stored == subscription  # every field, the base item and the OPEN invoice with its lines
    assert stored.latest_invoice == invoice.id and stored.invoices[0].status is InvoiceStatus.OPEN
    assert stored.invoices[0].lines[0].kind is LineKind.SUBSCRIPTION
    assert stored.invoices[0].total_cents == 3_000
    assert await rows(core, "SELECT type FROM events WHERE object_id = %s", subscription.id) == [
        {"type": "subscription.created"}
    ]
    assert await rows(core, "SELECT state, response FROM idempotency_keys WHERE key = %s", request.key) == [
        {"state": "completed", "response": b"answer"}
    ]
    found = await repo.find_by_idempotency_key(shop.owner.merchant_id, Environment.TEST, request.key)
    assert found is not None and found.id == subscription.id

    # The key is taken: a second create with it writes nothing at all.
    again = started(shop, now, key=request.key)
    assert not await repo.insert_new(again, turn(again), FirstClaim(request, b"other", now))
    assert await repo.get(shop.owner.merchant_id, Environment.TEST, again.id) is None
    for table in ("subscriptions", "subscription_items", "invoices"):
        counted = await rows(core, f"SELECT count(*) AS n FROM {table}")  # fixed table names
        assert counted == [{"n": 1}], table
    assert await rows(core, "SELECT 1 FROM events WHERE object_id = %s", again.id) == []

    # Without a claim the key's unique index still keeps one subscription per key; a taken id collides.
    unclaimed = started(shop, now, key=request.key)
    assert not await repo.insert_new(unclaimed, turn(unclaimed), None)
    twin = started(shop, now)
    twin.id = subscription.id
    for item in twin.items:
        item.subscription_id = subscription.id
    with pytest.raises(IdCollision):
        await repo.insert_new(twin, turn(twin), None)


async def test_a_trial_is_created_without_an_invoice(core: Core, clock: SettableClock) -> None:
    shop = await new_shop(core)
    subscription = await created(core, shop, clock.now(), price=shop.trial_price)
    stored = await PgSubscriptionRepository(core.pool).get(
        shop.owner.merchant_id, Environment.TEST, subscription.id
    )
    assert stored == subscription
    assert stored is not None and stored.status is SubscriptionStatus.TRIALING and stored.invoices == []
    assert stored.trial_end == clock.now().replace(microsecond=0) + timedelta(days=14)


async def test_activation_bumps_the_fence_and_loads_items_unbilled_prorations_and_open_invoices(
    core: Core, clock: SettableClock
) -> None:
    shop = await new_shop(core)
    repo = PgSubscriptionRepository(core.pool)
    subscription = await created(core, shop, clock.now())
    assert await repo.load_for_activation("sub_" + "x" * 24) is None

    loaded, fence = await _activate(repo, subscription.id)
    assert fence == 2
    assert loaded.items == subscription.items and loaded.invoices == subscription.invoices
    clock.advance(timedelta(days=10))
    added = loaded.add_item(
        shop.price, 2, ItemProration.DEFER_TO_NEXT_CYCLE, {"seat": "x"}, None, clock.now()
    )
    await repo.save(loaded, fence, turn(loaded))

    again, fence = await _activate(repo, subscription.id)
    assert fence == 3
    assert [item.id for item in again.items] == [subscription.base_item.id, added.id]  # base first
    assert again.items[1] == added
    assert again.prorations == loaded.prorations and len(again.prorations) == 1
    pending = again.prorations[0]
    assert pending.line.amount_cents > 0 and pending.line.proration is not None
    assert pending.invoice_id is None and not pending.billed
    assert [inv.id for inv in again.invoices] == [subscription.invoices[0].id]


async def test_a_save_writes_changed_items_prorations_and_invoices(core: Core, clock: SettableClock) -> None:
    shop = await new_shop(core)
    repo = PgSubscriptionRepository(core.pool)
    subscription = await created(core, shop, clock.now())
    first_invoice = subscription.invoices[0]
    owned, fence = await _activate(repo, subscription.id)

    # The first invoice is paid; an add-on is charged at once (an update invoice in the same period).
    owned.record_attempt(owned.invoices[0], "ch_" + "a" * 24, True, clock.now())
    clock.advance(timedelta(days=3))
    addon = owned.add_item(shop.price, 1, ItemProration.CHARGE_IMMEDIATELY, {}, None, clock.now())
    update_invoice = owned.open_invoice()
    assert update_invoice is not None and update_invoice.billing_reason is BillingReason.SUBSCRIPTION_UPDATE
    owned.update_item(addon.id, 3, ItemProration.DEFER_TO_NEXT_CYCLE, None, clock.now())
    await repo.save(owned, fence, turn(owned))

    events = await rows(
        core,
        "SELECT type, object_id FROM events WHERE object_id = ANY(%s) ORDER BY seq",
        [first_invoice.id, addon.id],
    )
    assert [(e["type"], e["object_id"]) for e in events] == [
        ("invoice.created", first_invoice.id),
        ("invoice.paid", first_invoice.id),
        ("subscription_item.created", addon.id),
        ("subscription_item.updated", addon.id),
    ]
    paid = await repo.get_invoice(shop.owner.merchant_id, Environment.TEST, first_invoice.id)
    assert paid is not None and paid.status is InvoiceStatus.PAID and paid.charge_id == "ch_" + "a" * 24
    assert paid.attempt_count == 1 and paid.lines == first_invoice.lines  # lines never change
    assert await repo.last_paid_invoice(subscription.id) == paid
    stored = await repo.get(shop.owner.merchant_id, Environment.TEST, subscription.id)
    assert stored is not None and [inv.id for inv in stored.invoices] == [update_invoice.id]  # still owed

    reloaded, fence = await _activate(repo, subscription.id)
    assert reloaded.items == owned.items
    assert reloaded.items[1].quantity == 3 and reloaded.items[1].proration_amount_cents > 0
    assert reloaded.prorations == owned.prorations and len(reloaded.prorations) == 2
    assert reloaded.invoices == [update_invoice]
    assert reloaded.latest_invoice == update_invoice.id

    # Paying the update invoice bills its proration (no longer loaded); removing the add-on is saved.
    reloaded.record_attempt(reloaded.invoices[0], "ch_" + "b" * 24, True, clock.now())
    reloaded.remove_item(addon.id, True, clock.now())
    await repo.save(reloaded, fence, turn(reloaded))
    billed = await rows(
        core, "SELECT billed FROM pending_prorations WHERE invoice_id = %s", update_invoice.id
    )
    assert billed == [{"billed": True}]
    last, _ = await _activate(repo, subscription.id)
    assert last.invoices == []
    assert last.items[1].status is ItemStatus.REMOVED and last.items[1].removed_at == clock.now()
    assert all(not p.billed for p in last.prorations) and len(last.prorations) == 2  # quantity + removal
    assert await repo.last_paid_invoice(subscription.id) == paid  # an update invoice bills no period


async def test_a_save_given_the_previous_state_rewrites_only_the_children_that_changed(
    core: Core, clock: SettableClock
) -> None:
    shop = await new_shop(core)
    repo = PgSubscriptionRepository(core.pool)
    subscription = await created(core, shop, clock.now())
    owned, fence = await _activate(repo, subscription.id)
    seat = owned.add_item(shop.price, 2, ItemProration.NONE, {}, None, clock.now())
    await repo.save(owned, fence, turn(owned))
    base_id = owned.base_item.id

    async def versions() -> dict[str, str]:
        """Each item row's xmin: the transaction that last wrote it."""
        found = await rows(
            core, "SELECT id, xmin::text AS v FROM subscription_items WHERE subscription_id = %s", owned.id
        )
        return {row["id"]: row["v"] for row in found}

    before = await versions()
    saved = copy.deepcopy(owned)
    owned.update_item(seat.id, 3, ItemProration.NONE, None, clock.now())  # the base item is untouched
    await repo.save(owned, fence, turn(owned), previous=saved)
    after = await versions()
    assert after[base_id] == before[base_id] and after[seat.id] != before[seat.id]
    reloaded, _ = await _activate(repo, subscription.id)
    assert reloaded.items == owned.items and [i.quantity for i in reloaded.items if i.id == seat.id] == [3]


async def test_a_stale_fence_writes_nothing_and_raises(core: Core, clock: SettableClock) -> None:
    shop = await new_shop(core)
    repo = PgSubscriptionRepository(core.pool)
    subscription = await created(core, shop, clock.now())
    stale, old_fence = await _activate(repo, subscription.id)
    await _activate(repo, subscription.id)  # another process took it over

    stale.add_item(shop.price, 1, ItemProration.CHARGE_IMMEDIATELY, {}, None, clock.now())
    stale.cancel(False, clock.now())
    with pytest.raises(StaleFence):
        await repo.save(stale, old_fence, turn(stale))

    stored = await repo.get(shop.owner.merchant_id, Environment.TEST, subscription.id)
    assert stored is not None and stored.status is SubscriptionStatus.ACTIVE and len(stored.items) == 1
    assert await rows(core, "SELECT count(*) AS n FROM invoices") == [{"n": 1}]
    assert await rows(core, "SELECT count(*) AS n FROM pending_prorations") == [{"n": 0}]
    assert await rows(core, "SELECT type FROM events WHERE object_id = %s", subscription.id) == [
        {"type": "subscription.created"}
    ]


async def test_a_period_is_invoiced_once(core: Core, clock: SettableClock) -> None:
    shop = await new_shop(core)
    repo = PgSubscriptionRepository(core.pool)
    subscription = await created(core, shop, clock.now())
    owned, fence = await _activate(repo, subscription.id)
    owned.open_period_invoice(BillingReason.SUBSCRIPTION_CYCLE, None, clock.now())  # the same period again
    owned.metadata = {"changed": "yes"}
    with pytest.raises(PeriodAlreadyInvoiced):
        await repo.save(owned, fence, turn(owned))
    stored = await repo.get(shop.owner.merchant_id, Environment.TEST, subscription.id)
    assert stored is not None and stored.metadata == {"plan": "pro"}  # the whole statement rolled back
    assert await rows(core, "SELECT count(*) AS n FROM invoices") == [{"n": 1}]


async def test_lists_filter_count_and_page_newest_first(core: Core, clock: SettableClock) -> None:
    shop = await new_shop(core)
    repo = PgSubscriptionRepository(core.pool)
    made = []
    for index in range(5):
        customer = shop.customer if index % 2 == 0 else shop.other_customer
        price = shop.price if index < 3 else shop.trial_price
        made.append(await created(core, shop, clock.now(), customer=customer, price=price))
    newest_first = [s.id for s in reversed(made)]
    stranger = await new_shop(core)
    await created(core, stranger, clock.now())
    merchant, test = shop.owner.merchant_id, Environment.TEST

    everything = await repo.list(SubscriptionQuery(merchant, test, limit=10))
    assert [s.id for s in everything.items] == newest_first
    assert everything.total_count == 5 and not everything.has_more
    assert all(len(s.items) == 1 for s in everything.items)

    first = await repo.list(SubscriptionQuery(merchant, test, limit=2))
    second = await repo.list(SubscriptionQuery(merchant, test, limit=2, starting_after=first.items[-1].id))
    last = await repo.list(SubscriptionQuery(merchant, test, limit=2, starting_after=second.items[-1].id))
    assert [s.id for page in (first, second, last) for s in page.items] == newest_first
    assert first.has_more and second.has_more and not last.has_more
    assert first.total_count == second.total_count == 5

    by_customer = await repo.list(SubscriptionQuery(merchant, test, customer_id=shop.other_customer.id))
    assert [s.id for s in by_customer.items] == [made[3].id, made[1].id] and by_customer.total_count == 2
    trials = await repo.list(SubscriptionQuery(merchant, test, status="TRIALING"))
    assert [s.id for s in trials.items] == [made[4].id, made[3].id]
    by_price = await repo.list(SubscriptionQuery(merchant, test, price_id=shop.price.id))
    assert [s.id for s in by_price.items] == [made[2].id, made[1].id, made[0].id]
    both = await repo.list(
        SubscriptionQuery(
            merchant, test, customer_id=shop.customer.id, status="ACTIVE", price_id=shop.price.id
        )
    )
    assert [s.id for s in both.items] == [made[2].id, made[0].id] and both.total_count == 2

    # Tenants never mix: the LIVE environment and another merchant see none of these.
    live = await repo.list(SubscriptionQuery(merchant, Environment.LIVE))
    assert live.items == [] and live.total_count == 0
    assert not await repo.exists(stranger.owner.merchant_id, test, made[0].id)
    assert not await repo.exists(merchant, Environment.LIVE, made[0].id)
    assert await repo.exists(merchant, test, made[0].id)
    assert await repo.get(stranger.owner.merchant_id, test, made[0].id) is None


async def test_invoice_lists_filter_by_subscription_customer_and_status(
    core: Core, clock: SettableClock
) -> None:
    shop = await new_shop(core)
    repo = PgSubscriptionRepository(core.pool)
    one = await created(core, shop, clock.now())
    two = await created(core, shop, clock.now(), customer=shop.other_customer)
    owned, fence = await _activate(repo, one.id)
    owned.record_attempt(owned.invoices[0], "ch_" + "c" * 24, True, clock.now())
    await repo.save(owned, fence, turn(owned))
    stranger = await new_shop(core)
    foreign = await created(core, stranger, clock.now())
    merchant, test = shop.owner.merchant_id, Environment.TEST
    one_invoice, two_invoice = one.invoices[0].id, two.invoices[0].id

    everything = await repo.list_invoices(InvoiceQuery(merchant, test))
    assert [inv.id for inv in everything.items] == [two_invoice, one_invoice] and everything.total_count == 2
    page = await repo.list_invoices(InvoiceQuery(merchant, test, limit=1))
    rest = await repo.list_invoices(InvoiceQuery(merchant, test, limit=1, starting_after=page.items[0].id))
    assert [inv.id for inv in (*page.items, *rest.items)] == [two_invoice, one_invoice]
    assert page.has_more and not rest.has_more

    of_one = await repo.list_invoices(InvoiceQuery(merchant, test, subscription_id=one.id))
    assert [inv.id for inv in of_one.items] == [one_invoice]
    of_customer = await repo.list_invoices(InvoiceQuery(merchant, test, customer_id=shop.other_customer.id))
    assert [inv.id for inv in of_customer.items] == [two_invoice]
    paid = await repo.list_invoices(InvoiceQuery(merchant, test, status="PAID"))
    assert [inv.id for inv in paid.items] == [one_invoice] and paid.total_count == 1
    assert (await repo.list_invoices(InvoiceQuery(merchant, test, status="VOID"))).total_count == 0

    assert await repo.invoice_exists(merchant, test, one_invoice)
    assert not await repo.invoice_exists(merchant, test, foreign.invoices[0].id)
    assert await repo.get_invoice(merchant, test, foreign.invoices[0].id) is None
    assert await repo.get_invoice(merchant, Environment.LIVE, one_invoice) is None
    assert (await repo.list_invoices(InvoiceQuery(merchant, Environment.LIVE))).total_count == 0


async def _activate(repo: PgSubscriptionRepository, subscription_id: str) -> tuple[Subscription, int]:
    loaded = await repo.load_for_activation(subscription_id)
    assert loaded is not None
    return loaded
