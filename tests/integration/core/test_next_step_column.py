"""The billing run's stored next step (subscriptions.next_step_at) is the domain's, whatever wrote it.

The claim reads the column instead of evaluating the due rules (subscription_repository.py), so the
column is the rule's only copy in the database: a save writes `billing_steps.next_step_at` of the state it
saves, and migration 0026 backfilled the rows that existed before it by the SQL rules the due query used
to evaluate. Generated subscriptions walk through the moves that change a step time (trial and period
ends, notices, declined and paid attempts, retries, UNPAID, pause and resume, cancels with and without a
refund, voids), saved after each one: the stored time must equal the domain's for the state saved and
for the state loaded back, and the migration's backfill must give the same time for every one of them.
"""

from __future__ import annotations

import random
import uuid
from datetime import datetime, timedelta
from importlib import resources

import psycopg
import pytest

from core_server.billing.domain.billing_steps import StepKind, apply_step, next_step, next_step_at
from core_server.billing.domain.invoice import Invoice, InvoiceStatus
from core_server.billing.domain.subscription import Subscription
from core_server.billing.domain.subscription_status import SubscriptionStatus
from core_server.billing.storage.subscription_repository import PgSubscriptionRepository
from core_server.bootstrap import Core
from core_server.kernel.application.clocks import SettableClock
from core_server.kernel.domain.errors import DomainError
from tests.integration.core.test_subscription_repository import Shop, created, new_shop, rows, turn

pytestmark = pytest.mark.integration

WALKS = 30
MOVES = 16


async def _stored(core: Core, subscription_id: str) -> datetime | None:
    found = await rows(core, "SELECT next_step_at FROM subscriptions WHERE id = %s", subscription_id)
    at: datetime | None = found[0]["next_step_at"]
    return at


def _attempt(subscription: Subscription, invoice: Invoice, paid: bool, at: datetime) -> None:
    charge = "ch_" + uuid.uuid4().hex[:24] if paid else None
    subscription.record_attempt(invoice, charge, paid, at)


def _move(
    subscription: Subscription, rng: random.Random, now: datetime, pays: float, last_paid: Invoice | None
) -> datetime:
    """One move a turn could make at `now` (or the billing run's next step, at its own time); returns the
    time the walk has reached; a charge attempt succeeds with probability `pays`. A move the
    subscription's status refuses changes nothing. `last_paid`: what a cancel with `prorate` refunds."""
    owed = [i for i in subscription.invoices if i.status is InvoiceStatus.OPEN]
    choice = rng.choice(["step", "step", "step", "pay", "decline", "pause", "resume", "cancel", "void"])
    try:
        if choice == "step":
            at = next_step_at(subscription)
            step = next_step(subscription, at) if at is not None else None
            if step is None:
                return now
            invoice = apply_step(subscription, step, None)
            if step.kind is StepKind.CANCEL_REFUND:
                subscription.finish_cancel_refund(None, step.at)
            if invoice is not None:
                _attempt(subscription, invoice, rng.random() < pays, step.at)
            return max(now, step.at)
        if choice in ("pay", "decline") and owed:
            _attempt(subscription, rng.choice(owed), choice == "pay", now)
        elif choice == "pause":
            subscription.pause(now)
        elif choice == "resume":
            invoice = subscription.resume(None, now)
            if invoice is not None:
                _attempt(subscription, invoice, rng.random() < pays, now)
        elif choice == "cancel":
            kind = rng.choice(["at period end", "now", "now, refunding"])
            if kind == "now, refunding":  # mid-period, so that part of the period is owed back
                start, end = subscription.current_period_start, subscription.current_period_end
                now = max(now, start + (end - start) / 2)
            refund_of = last_paid if kind == "now, refunding" else None
            subscription.cancel(kind == "at period end", now, refund_of=refund_of)
        elif choice == "void" and owed:
            subscription.void_invoice(rng.choice(owed).id, now)
    except DomainError:
        pass  # refused in this status: nothing changed
    return now + timedelta(hours=rng.randint(1, 24 * 9))


async def _walk(core: Core, shop: Shop, start: datetime, seed: int) -> list[str]:
    """A subscription taken through random moves, saved after each; checks the column after every save."""
    rng = random.Random(seed)
    repo = PgSubscriptionRepository(core.pool)
    trial = rng.random() < 0.4
    pays = rng.choice([0.05, 0.5, 0.9])  # a card that keeps declining reaches UNPAID
    subscription = await created(core, shop, start, price=shop.trial_price if trial else shop.price)
    assert await _stored(core, subscription.id) == next_step_at(subscription)
    loaded = await repo.load_for_activation(subscription.id)
    assert loaded is not None
    working, fence = loaded
    if working.open_invoice() is not None:
        _attempt(working, working.invoices[0], rng.random() < pays, start)
    now = start
    seen: list[str] = []
    for move in range(MOVES):
        await repo.save(working, fence, turn(working))
        expected = next_step_at(working)
        case = f"seed {seed}, move {move}: {working.status.value}"
        assert await _stored(core, working.id) == expected, case
        assert await _backfilled(core, working.id) == expected, case
        loaded = await repo.load_for_activation(working.id)
        assert loaded is not None
        working, fence = loaded
        assert next_step_at(working) == expected, case  # what a load brings back has the same next step
        seen.append(f"{working.status.value}{'+' if working.pending_cancel_refund else ''}")
        if working.status is SubscriptionStatus.CANCELED and working.pending_cancel_refund is None:
            assert expected is None, case
            break
        now = _move(working, rng, now, pays, await repo.last_paid_invoice(working.id))
    return seen


def _backfill() -> str:
    """The UPDATE of migration 0026 that gave the rows written before it their next step."""
    text = (
        resources.files("core_server.db")
        .joinpath("migrations", "0026_subscription_next_step.sql")
        .read_text()
    )
    update = text[text.index("UPDATE subscriptions") :]
    return update[: update.index(";")]


async def _backfilled(core: Core, subscription_id: str) -> datetime | None:
    """What the migration's backfill gives the row as it stands, in a transaction rolled back after."""
    at: datetime | None = None
    async with core.pool.connection() as conn, conn.transaction():
        await conn.execute("UPDATE subscriptions SET next_step_at = NULL WHERE id = %s", (subscription_id,))
        await conn.execute(_backfill())
        found = await (
            await conn.execute("SELECT next_step_at FROM subscriptions WHERE id = %s", (subscription_id,))
        ).fetchone()
        at = found["next_step_at"] if found else None
        raise psycopg.Rollback()
    return at


async def test_every_save_stores_the_domains_next_step_and_the_backfill_agrees(
    core: Core, clock: SettableClock
) -> None:
    shop = await new_shop(core)
    start = clock.now()
    statuses: set[str] = set()
    for seed in range(WALKS):
        statuses.update(await _walk(core, shop, start, seed))
    # The walks reach every status a step time depends on (and a cancel waiting for its refund).
    assert {status.value for status in SubscriptionStatus} <= statuses
    assert "CANCELED+" in statuses
