"""Each due rule is written once, in the domain; the SQL that finds due rows must give the domain's answer.

Table-driven on real PostgreSQL: every case is a row state, and for each the domain's answer
(`Charge.seen_at`, `Charge.timer_due_at`, `billing_steps.next_step`) is compared with what the
repository's SQL answers (`_SEEN_STATUS`, the expiry and authorization sweeps' queries, the billing run's
claim over the stored next step), at real time and again through a merchant's sandbox clock offset. A
change to one side that the other does not follow fails here, not in production. (test_next_step_column.py
holds the stored next step itself to the domain, through every kind of move.)
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import pytest

from core_server.billing.domain.billing_steps import CANCEL_REFUND_GRACE, UNPAID_GRACE, next_step, notice_time
from core_server.billing.domain.events import INVOICE_UPCOMING, TRIAL_WILL_END
from core_server.billing.domain.subscription import Subscription
from core_server.billing.storage.subscription_repository import PgSubscriptionRepository
from core_server.bootstrap import Core
from core_server.kernel.application.clocks import SettableClock
from core_server.kernel.application.job_claims import JobClaim
from core_server.kernel.application.owner import Owner
from core_server.kernel.application.ports import TurnWrite
from core_server.kernel.storage.clock_offsets import PgClockOffsets
from core_server.payments.domain.charge import AUTHORIZATION_HOLD, Charge, ChargeDraft, ChargeStatus
from core_server.payments.storage.charge_repository import _SEEN_STATUS, PgChargeRepository
from tests.integration.core.factories import new_owner
from tests.integration.core.test_billing_run_storage import paid_up
from tests.integration.core.test_subscription_repository import Shop, created, new_shop, turn

pytestmark = pytest.mark.integration

SECOND = timedelta(seconds=1)
HOUR = timedelta(hours=1)
SANDBOX_OFFSET = timedelta(days=20)

# -- charges -------------------------------------------------------------------------------------------

# name → (status, expires_at, authorization_due_at, authorized_at), each relative to the probe time T.
ChargeState = tuple[ChargeStatus, timedelta, timedelta | None, timedelta | None]
CHARGE_STATES: dict[str, ChargeState] = {
    "checkout open": (ChargeStatus.PENDING, SECOND, None, None),
    "checkout at its 24 h": (ChargeStatus.PENDING, timedelta(0), None, None),
    "checkout past its 24 h": (ChargeStatus.PENDING, -HOUR, None, None),
    "paid before its 24 h, authorization outstanding": (ChargeStatus.PENDING, -SECOND, SECOND, None),
    "authorization due now": (ChargeStatus.PENDING, HOUR, timedelta(0), None),
    "authorization due a second ago": (ChargeStatus.PENDING, -HOUR, -SECOND, None),
    "authorization due 7 days ago": (ChargeStatus.PENDING, -AUTHORIZATION_HOLD, -AUTHORIZATION_HOLD, None),
    "authorized inside its hold": (ChargeStatus.AUTHORIZED, -HOUR, None, -AUTHORIZATION_HOLD + SECOND),
    "authorized at its hold": (ChargeStatus.AUTHORIZED, -HOUR, None, -AUTHORIZATION_HOLD),
    "captured long ago": (ChargeStatus.CAPTURED, -HOUR, None, -AUTHORIZATION_HOLD * 2),
    "expired": (ChargeStatus.EXPIRED, -HOUR, None, None),
    "voided": (ChargeStatus.VOIDED, -HOUR, None, -AUTHORIZATION_HOLD * 2),
}


def _probe(now: datetime) -> JobClaim:
    """A merchant's due query at `now`: with an owner it only reads (no batch is claimed)."""
    return JobClaim.fresh("due-rules-probe", now, timedelta(seconds=1))


def _charge(owner: Owner, at: datetime, state: ChargeState) -> Charge:
    status, expires, authorization_due, authorized = state
    draft = ChargeDraft(amount=1_000, currency="usd", return_url="https://shop.example/ok")
    charge = Charge.create(
        "ch_" + uuid.uuid4().hex, owner.merchant_id, owner.environment, draft, at - timedelta(days=30)
    )
    charge.pending_events.clear()
    charge.status = status
    charge.expires_at = at + expires
    charge.authorization_due_at = at + authorization_due if authorization_due is not None else None
    charge.authorized_at = at + authorized if authorized is not None else None
    return charge


async def _sql_seen_status(core: Core, charge_id: str, at: datetime) -> str:
    async with core.pool.connection() as conn:
        row = await (
            await conn.execute(
                f"SELECT {_SEEN_STATUS} AS seen FROM charges WHERE id = %(id)s",  # noqa: S608 (constant SQL)
                {"id": charge_id, "seen_at": at, "hold_start": at - AUTHORIZATION_HOLD},
            )
        ).fetchone()
    assert row is not None
    return str(row["seen"])


async def test_the_charge_sql_agrees_with_the_domains_timers_case_by_case(
    core: Core, clock: SettableClock
) -> None:
    owner = await new_owner(core)
    repo = PgChargeRepository(core.pool)
    at = clock.now()
    charges = {name: _charge(owner, at, state) for name, state in CHARGE_STATES.items()}
    for charge in charges.values():
        assert await repo.insert_new(charge, TurnWrite(), None)

    for offset in (timedelta(0), SANDBOX_OFFSET):
        # The same rows judged at the merchant's sandbox time: real time is `at - offset`. (Set without an
        # advance, which would run the sweeps over these very rows.)
        await PgClockOffsets(core.pool).set(owner.merchant_id, offset)
        real_now = at - offset
        expiring = set(await repo.due_for_expiry(_probe(real_now), 100, owner))
        authorizing = set(await repo.due_authorizations(_probe(real_now), 100, owner))
        for name, charge in charges.items():
            due_at = charge.timer_due_at
            due = due_at is not None and due_at <= at
            case = f"{name} (offset {offset})"
            assert (charge.id in expiring) == (due and not charge.awaiting_authorization), case
            assert (charge.id in authorizing) == (due and charge.awaiting_authorization), case

    for name, charge in charges.items():
        for probe in (at - SECOND, at, at + SECOND):
            assert await _sql_seen_status(core, charge.id, probe) == charge.seen_at(probe).status.value, name


# -- subscriptions -------------------------------------------------------------------------------------


async def _owned(repo: PgSubscriptionRepository, subscription_id: str) -> tuple[Subscription, int]:
    loaded = await repo.load_for_activation(subscription_id)
    assert loaded is not None
    return loaded


def _probes(subscription: Subscription, start: datetime) -> set[datetime]:
    """The moments around which a step of `subscription` could fall due: each timestamp a candidate of
    next_step is computed from, a second before, at and after it (the rule itself stays the domain's)."""
    moments = [start, start + timedelta(days=400), subscription.current_period_end]
    moments.append(subscription.trial_end or start)
    if subscription.trial_start is not None and subscription.trial_end is not None:
        moments.append(notice_time(subscription.trial_start, subscription.trial_end) or start)
    moments.append(notice_time(subscription.current_period_start, subscription.current_period_end) or start)
    if subscription.unpaid_at is not None:
        moments.append(subscription.unpaid_at + UNPAID_GRACE)
    if subscription.canceled_at is not None:
        moments.append(subscription.canceled_at + CANCEL_REFUND_GRACE)
    moments.extend(i.next_attempt_at for i in subscription.invoices if i.next_attempt_at is not None)
    return {moment + delta for moment in moments for delta in (-SECOND, timedelta(0), SECOND)}


Move = Callable[[Subscription, datetime], Any]


async def _moved(core: Core, shop: Shop, start: datetime, move: Move, *, trial: bool = False) -> str:
    repo = PgSubscriptionRepository(core.pool)
    subscription = await (
        created(core, shop, start, price=shop.trial_price) if trial else paid_up(core, shop, start)
    )
    owned, fence = await _owned(repo, subscription.id)
    move(owned, start)
    await repo.save(owned, fence, turn(owned))
    return subscription.id


def _announce(event_type: str) -> Move:
    def move(subscription: Subscription, at: datetime) -> None:
        end = subscription.trial_end if event_type == TRIAL_WILL_END else subscription.current_period_end
        assert end is not None
        subscription.send_notice(event_type, end, at)

    return move


async def test_the_subscription_sql_agrees_with_next_step_case_by_case(
    core: Core, clock: SettableClock
) -> None:
    shop = await new_shop(core)
    repo = PgSubscriptionRepository(core.pool)
    start = clock.now()
    nothing: Move = lambda _s, _at: None  # noqa: E731
    ids = {
        "trialing": await _moved(core, shop, start, nothing, trial=True),
        "trialing, announced": await _moved(core, shop, start, _announce(TRIAL_WILL_END), trial=True),
        "active": await _moved(core, shop, start, nothing),
        "active, announced": await _moved(core, shop, start, _announce(INVOICE_UPCOMING)),
        "active, canceling at period end": await _moved(core, shop, start, lambda s, at: s.cancel(True, at)),
        "paused": await _moved(core, shop, start, lambda s, at: s.pause(at)),
        "canceled": await _moved(core, shop, start, lambda s, at: s.cancel(False, at)),
    }
    for name, times in (("past due", 1), ("unpaid", 4)):
        subscription = await created(core, shop, start)
        owned, fence = await _owned(repo, subscription.id)
        for days in (0, 3, 8, 15)[:times]:
            owned.record_attempt(owned.invoices[0], None, False, start + timedelta(days=days))
        await repo.save(owned, fence, turn(owned))
        ids[name] = subscription.id

    states = {name: (await _owned(repo, subscription_id))[0] for name, subscription_id in ids.items()}
    for offset in (timedelta(0), SANDBOX_OFFSET):
        await PgClockOffsets(core.pool).set(shop.owner.merchant_id, offset)
        for name, subscription in states.items():
            for probe in sorted(_probes(subscription, start)):
                due = subscription.id in set(
                    await repo.due_for_billing(_probe(probe - offset), 100, shop.owner)
                )
                expected = next_step(subscription, probe)
                assert due == (expected is not None), f"{name} at {probe} (offset {offset}): {expected}"
