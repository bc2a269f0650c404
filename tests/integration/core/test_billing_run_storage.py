"""The billing run's storage on real PostgreSQL: each due step is found at its merchant's time and not a
second before (sandbox clock offsets included), a batch is claimed by one caller at a time until its claim
lapses while a clock advance's run ignores claims; notices and merchant credits are written once; the new
columns round-trip."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import pytest

from core_server.billing.domain.billing_steps import UNPAID_GRACE, notice_time
from core_server.billing.domain.events import INVOICE_UPCOMING, TRIAL_WILL_END
from core_server.billing.domain.invoice import InvoiceStatus
from core_server.billing.domain.subscription import Subscription
from core_server.billing.domain.subscription_status import SubscriptionStatus
from core_server.billing.storage.subscription_repository import PgSubscriptionRepository
from core_server.bootstrap import Core
from core_server.kernel.application.clocks import SettableClock
from core_server.kernel.application.job_claims import JobClaim
from core_server.kernel.application.owner import Owner
from core_server.kernel.domain.environment import Environment
from tests.integration.core.test_subscription_repository import Shop, created, new_shop, rows, turn

pytestmark = pytest.mark.integration

SECOND = timedelta(seconds=1)
CHARGE = "ch_" + "a" * 24


async def paid_up(core: Core, shop: Shop, at: datetime) -> Subscription:
    """A subscription whose first invoice is paid: its first attempt (due the moment the invoice opens)
    is behind it, so only the period's own steps are due."""
    subscription = await created(core, shop, at)
    repo = PgSubscriptionRepository(core.pool)
    owned, fence = await _owned(repo, subscription.id)
    owned.record_attempt(owned.invoices[0], "ch_" + uuid.uuid4().hex[:24], True, at)
    await repo.save(owned, fence, turn(owned))
    return owned


async def _owned(repo: PgSubscriptionRepository, subscription_id: str) -> tuple[Subscription, int]:
    loaded = await repo.load_for_activation(subscription_id)
    assert loaded is not None
    return loaded


def _at(at: datetime) -> JobClaim:
    """A fresh claim of the billing run's job, made at `at`."""
    return JobClaim.fresh("billing", at, timedelta(minutes=5))


async def _due(repo: PgSubscriptionRepository, owner: Owner, at: datetime) -> set[str]:
    """The owner-scoped run's answer (no claims), so one test can ask again and again."""
    return set(await repo.due_for_billing(_at(at), 100, owner))


async def _unclaim(core: Core, ids: Sequence[str]) -> None:
    """As if the claims had lapsed."""
    async with core.pool.connection() as conn:
        await conn.execute(
            "UPDATE job_claims SET claimed_until = '2000-01-01Z' WHERE job = 'billing' AND entity = ANY(%s)",
            (list(ids),),
        )


async def _set_clock(core: Core, merchant_id: str, offset: timedelta) -> None:
    async with core.pool.connection() as conn:
        await conn.execute(
            "INSERT INTO test_clocks (merchant_id, time_offset) VALUES (%s, %s)"
            " ON CONFLICT (merchant_id) DO UPDATE SET time_offset = EXCLUDED.time_offset",
            (merchant_id, offset),
        )


async def _live_shop(core: Core, merchant_id: str) -> Shop:
    """The same merchant's LIVE catalog and customers (LIVE never follows the sandbox clock)."""
    owner = Owner(merchant_id, Environment.LIVE)
    plan = await core.plans.create_plan(owner, name="Pro")
    price = await core.plans.create_price(
        owner, plan.id, amount_cents=3_000, currency="usd", interval="monthly", interval_count=1
    )
    email = f"c{uuid.uuid4().hex[:8]}@example.com"
    customer = await core.customers.create(owner, email=email, name=None, address=None, metadata={})
    return Shop(owner, price, price, customer, customer)


async def test_a_trial_is_due_at_its_notice_then_at_its_end(core: Core, clock: SettableClock) -> None:
    shop = await new_shop(core)
    repo = PgSubscriptionRepository(core.pool)
    trial = await created(core, shop, clock.now(), price=shop.trial_price)
    assert trial.trial_start is not None and trial.trial_end is not None
    notice = notice_time(trial.trial_start, trial.trial_end)
    # 14 days from 2026-11-22 12:00: the trial ends 2026-12-06 12:00, announced at 00:00 UTC three days
    # and a half before.
    assert trial.trial_end == datetime(2026, 12, 6, 12, tzinfo=UTC)
    assert notice == datetime(2026, 12, 4, tzinfo=UTC)

    assert await _due(repo, shop.owner, clock.now()) == set()
    assert await _due(repo, shop.owner, notice - SECOND) == set()
    assert await _due(repo, shop.owner, notice) == {trial.id}

    owned, fence = await _owned(repo, trial.id)
    owned.send_notice(TRIAL_WILL_END, trial.trial_end, notice)
    await repo.save(owned, fence, turn(owned))
    assert await _due(repo, shop.owner, notice) == set()  # announced once
    assert await _due(repo, shop.owner, trial.trial_end - SECOND) == set()
    assert await _due(repo, shop.owner, trial.trial_end) == {trial.id}


async def test_a_period_is_due_at_its_upcoming_notice_then_at_its_end(
    core: Core, clock: SettableClock
) -> None:
    shop = await new_shop(core)
    repo = PgSubscriptionRepository(core.pool)
    active = await paid_up(core, shop, clock.now())
    end = active.current_period_end
    notice = notice_time(active.current_period_start, end)
    assert end == datetime(2026, 12, 22, 12, tzinfo=UTC) and notice == datetime(2026, 12, 20, tzinfo=UTC)

    assert await _due(repo, shop.owner, notice - SECOND) == set()
    assert await _due(repo, shop.owner, notice) == {active.id}
    owned, fence = await _owned(repo, active.id)
    owned.send_notice(INVOICE_UPCOMING, end, notice)
    await repo.save(owned, fence, turn(owned))
    assert await _due(repo, shop.owner, end - SECOND) == set()
    assert await _due(repo, shop.owner, end) == {active.id}

    # Set to cancel at period end: no upcoming invoice to announce, but the end still comes.
    canceling = await paid_up(core, shop, clock.now())
    owned, fence = await _owned(repo, canceling.id)
    owned.cancel(True, clock.now())
    await repo.save(owned, fence, turn(owned))
    assert await _due(repo, shop.owner, notice) == set()
    assert await _due(repo, shop.owner, end) == {active.id, canceling.id}


async def test_a_retry_is_due_at_its_time_and_unpaid_is_canceled_30_days_later(
    core: Core, clock: SettableClock
) -> None:
    shop = await new_shop(core)
    repo = PgSubscriptionRepository(core.pool)
    start = clock.now()
    failing = await created(core, shop, start)
    owned, fence = await _owned(repo, failing.id)
    owned.record_attempt(owned.invoices[0], None, False, start)
    await repo.save(owned, fence, turn(owned))
    assert owned.status is SubscriptionStatus.PAST_DUE
    retry = start + timedelta(days=3)
    assert await _due(repo, shop.owner, retry - SECOND) == set()
    assert await _due(repo, shop.owner, retry) == {failing.id}

    # The retries 3, 8 and 15 days after the first failure fail too: UNPAID, canceled 30 days later.
    owned, fence = await _owned(repo, failing.id)
    for days in (3, 8, 15):
        owned.record_attempt(owned.invoices[0], None, False, start + timedelta(days=days))
    await repo.save(owned, fence, turn(owned))
    unpaid_at = start + timedelta(days=15)
    assert owned.status is SubscriptionStatus.UNPAID and owned.unpaid_at == unpaid_at
    assert owned.invoices[0].status is InvoiceStatus.UNCOLLECTIBLE
    # UNPAID: no retry, no period end (the period ended on 2026-12-22 meanwhile).
    assert await _due(repo, shop.owner, unpaid_at + UNPAID_GRACE - SECOND) == set()
    assert await _due(repo, shop.owner, unpaid_at + UNPAID_GRACE) == {failing.id}


async def test_paused_and_canceled_subscriptions_are_never_due(core: Core, clock: SettableClock) -> None:
    shop = await new_shop(core)
    repo = PgSubscriptionRepository(core.pool)
    paused = await created(core, shop, clock.now())
    canceled = await created(core, shop, clock.now(), price=shop.trial_price)
    for subscription_id, change in ((paused.id, "pause"), (canceled.id, "cancel")):
        owned, fence = await _owned(repo, subscription_id)
        owned.pause(clock.now()) if change == "pause" else owned.cancel(False, clock.now())
        await repo.save(owned, fence, turn(owned))
    far = clock.now() + timedelta(days=400)
    assert await _due(repo, shop.owner, far) == set()
    assert await repo.due_for_billing(_at(far), 100, None) == []


async def test_a_sandbox_clock_makes_its_merchants_test_subscriptions_due_early(
    core: Core, clock: SettableClock
) -> None:
    shop = await new_shop(core)
    live = await _live_shop(core, shop.owner.merchant_id)
    stranger = await new_shop(core)  # another merchant, on real time
    repo = PgSubscriptionRepository(core.pool)
    test_sub = await paid_up(core, shop, clock.now())
    live_sub = await paid_up(core, live, clock.now())
    other_sub = await paid_up(core, stranger, clock.now())
    offset = timedelta(days=20)
    await _set_clock(core, shop.owner.merchant_id, offset)

    # Its upcoming notice is due when the merchant's TEST time reaches it: 20 days early in real time.
    notice = notice_time(test_sub.current_period_start, test_sub.current_period_end)
    assert notice is not None
    assert await _due(repo, shop.owner, notice - offset - SECOND) == set()
    assert await _due(repo, shop.owner, notice - offset) == {test_sub.id}
    assert await _due(repo, live.owner, notice - offset) == set()  # LIVE runs on real time
    assert await repo.due_for_billing(_at(notice - offset - SECOND), 100, None) == []
    assert await repo.due_for_billing(_at(notice - offset), 100, None) == [test_sub.id]
    # At the real notice time everyone is due (the TEST one's claim, made 20 days before, lapsed long ago).
    assert set(await repo.due_for_billing(_at(notice), 100, None)) == {test_sub.id, live_sub.id, other_sub.id}


async def test_concurrent_runs_claim_disjoint_batches_until_the_claims_lapse(
    core: Core, clock: SettableClock
) -> None:
    shops = [await new_shop(core), await new_shop(core)]
    repo = PgSubscriptionRepository(core.pool)
    subscriptions = [await created(core, shops[n % 2], clock.now()) for n in range(24)]
    everyone = {s.id for s in subscriptions}
    due_at = subscriptions[0].current_period_end

    # Four cores' runs at once, each asking for up to 10: no subscription in two batches.
    batches = await asyncio.gather(
        *(PgSubscriptionRepository(core.pool).due_for_billing(_at(due_at), 10, None) for _ in range(4))
    )
    claimed = [sub_id for batch in batches for sub_id in batch]
    assert len(claimed) == len(set(claimed)) and set(claimed) <= everyone
    assert all(len(batch) <= 10 for batch in batches)
    rest = await repo.due_for_billing(_at(due_at), 100, None)
    assert set(claimed).isdisjoint(rest) and set(claimed) | set(rest) == everyone
    assert await repo.due_for_billing(_at(due_at), 100, None) == []  # every one is claimed

    # A clock advance's run for one merchant ignores the claims (and claims nothing).
    first_owner = shops[0].owner
    mine = {s.id for s in subscriptions if s.merchant_id == first_owner.merchant_id}
    assert await _due(repo, first_owner, due_at) == mine
    assert await _due(repo, first_owner, due_at) == mine

    # A lapsed claim is taken again, by one caller only.
    lapsed = sorted(everyone)[:3]
    await _unclaim(core, lapsed)
    again = await asyncio.gather(
        repo.due_for_billing(_at(due_at), 100, None), repo.due_for_billing(_at(due_at), 100, None)
    )
    assert sorted([*again[0], *again[1]]) == lapsed


async def test_notices_and_credits_are_written_once(core: Core, clock: SettableClock) -> None:
    shop = await new_shop(core)
    repo = PgSubscriptionRepository(core.pool)
    subscription = await created(core, shop, clock.now())
    invoice_id = subscription.invoices[0].id
    owned, fence = await _owned(repo, subscription.id)
    owned.record_attempt(owned.invoices[0], CHARGE, True, clock.now())
    owned.send_notice(INVOICE_UPCOMING, owned.current_period_end, clock.now())
    await repo.save(owned, fence, turn(owned))

    # The same state saved again (a retried turn): nothing duplicated, nothing refused.
    _, fence = await _owned(repo, subscription.id)
    await repo.save(owned, fence, turn(owned))
    reloaded, fence = await _owned(repo, subscription.id)
    assert reloaded.notices == {(INVOICE_UPCOMING, subscription.current_period_end)}
    await repo.save(reloaded, fence, turn(reloaded))

    notices = await rows(core, "SELECT kind, announced FROM subscription_notices")
    assert notices == [{"kind": INVOICE_UPCOMING, "announced": subscription.current_period_end}]
    credits = await rows(
        core,
        "SELECT invoice_id, merchant_id, environment, currency, total_cents, fee_cents, tax_cents,"
        " net_cents, created_at FROM invoice_credits",
    )
    # fee = round_half_up(3000 × 0.029 + 30) = 117; net = 3000 − 117 − 0.
    assert credits == [
        {
            "invoice_id": invoice_id,
            "merchant_id": shop.owner.merchant_id,
            "environment": "test",
            "currency": "usd",
            "total_cents": 3_000,
            "fee_cents": 117,
            "tax_cents": 0,
            "net_cents": 2_883,
            "created_at": clock.now(),
        }
    ]
    paid = await repo.get_invoice(shop.owner.merchant_id, Environment.TEST, invoice_id)
    assert paid is not None and (paid.merchant_fee_cents, paid.merchant_net_cents) == (117, 2_883)


async def test_loading_keeps_the_current_periods_notices_and_every_trial_notice(
    core: Core, clock: SettableClock
) -> None:
    shop = await new_shop(core)
    repo = PgSubscriptionRepository(core.pool)
    subscription = await created(core, shop, clock.now())
    start, end = subscription.current_period_start, subscription.current_period_end
    old_trial_end = start - timedelta(days=1)
    async with core.pool.connection() as conn:
        await conn.execute(
            "INSERT INTO subscription_notices (subscription_id, kind, announced)"
            " SELECT %s, kind, announced FROM unnest(%s::text[], %s::timestamptz[]) AS n(kind, announced)",
            (
                subscription.id,
                [INVOICE_UPCOMING, INVOICE_UPCOMING, TRIAL_WILL_END],
                [start - SECOND, end, old_trial_end],
            ),
        )
    expected = {(INVOICE_UPCOMING, end), (TRIAL_WILL_END, old_trial_end)}
    owned, _ = await _owned(repo, subscription.id)
    assert owned.notices == expected
    got = await repo.get(shop.owner.merchant_id, Environment.TEST, subscription.id)
    assert got is not None and got.notices == expected


async def test_find_and_the_new_columns_round_trip(core: Core, clock: SettableClock) -> None:
    shop = await new_shop(core)
    repo = PgSubscriptionRepository(core.pool)
    start = clock.now()
    subscription = await created(core, shop, start)
    owned, fence = await _owned(repo, subscription.id)
    for days in (0, 3, 8, 15):
        owned.record_attempt(owned.invoices[0], None, False, start + timedelta(days=days))
    await repo.save(owned, fence, turn(owned))

    found = await repo.find(subscription.id)  # any tenant: the run has no tenant to name
    assert found is not None
    assert found == await repo.get(shop.owner.merchant_id, Environment.TEST, subscription.id)
    assert found.status is SubscriptionStatus.UNPAID and found.unpaid_at == start + timedelta(days=15)
    assert await repo.find("sub_" + "x" * 24) is None
    invoice = await repo.get_invoice(shop.owner.merchant_id, Environment.TEST, subscription.invoices[0].id)
    assert invoice is not None
    assert invoice.first_failed_at == start and invoice.attempt_count == 4
    assert invoice.status is InvoiceStatus.UNCOLLECTIBLE and invoice.next_attempt_at is None
    assert (invoice.merchant_fee_cents, invoice.merchant_net_cents) == (None, None)
    assert await rows(core, "SELECT count(*) AS n FROM invoice_credits") == [{"n": 0}]


async def test_an_invoice_left_open_without_an_attempt_is_due_at_once(
    core: Core, clock: SettableClock
) -> None:
    """A core that died between saving a step's invoice and charging it: the next run finds it."""
    shop = await new_shop(core)
    repo = PgSubscriptionRepository(core.pool)
    stranded = await created(core, shop, clock.now())
    assert await _due(repo, shop.owner, clock.now() - SECOND) == set()
    assert await _due(repo, shop.owner, clock.now()) == {stranded.id}
