"""Payouts on the real database (DESIGN §9): a payout settles the available rows once, even with two runs
at once; a stale plan writes nothing; the run's claims keep two cores on different merchants; a failing
account gets its funds back; reconciliation proves every payout's rows."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from core_server.bootstrap import Core
from core_server.config import Settings
from core_server.kernel.application.clocks import SettableClock
from core_server.kernel.application.job_claims import JobClaim
from core_server.kernel.application.owner import Owner
from core_server.kernel.storage.job_claims import PgJobClaims
from core_server.ledger.application.payout_run import entity_id
from core_server.ledger.application.payouts import new_payout_id
from core_server.ledger.domain.balance import CurrencyAmount
from core_server.ledger.domain.payout import FAILING_ACCOUNT, PayoutStatus, plan_payout
from core_server.ledger.domain.reconciliation import FindingKind
from core_server.ledger.storage.payout_repository import PgPayoutRepository
from core_server.payments.application.charges import NewCharge
from core_server.payments.domain.card import CardInput
from core_server.payments.domain.charge import Charge
from core_server.sealing import payout_accounts
from tests.integration.core.conftest import make_core
from tests.integration.core.factories import captured_charge, new_owner
from tests.integration.core.test_subscription_service import customer_with_card, monthly_price

pytestmark = pytest.mark.integration

# The fixture clock starts on Sunday 2026-11-22 12:00 UTC: captures are available on Tuesday 12:00, the
# first daily payout after that is Wednesday 00:00 and arrives Thursday 00:00.
WEDNESDAY = datetime(2026, 11, 25, 0, 30, tzinfo=UTC)
THURSDAY = datetime(2026, 11, 26, 0, 30, tzinfo=UTC)


async def rows_of(core: Core, merchant_id: str) -> list[dict[str, Any]]:
    async with core.pool.connection() as conn:
        cur = await conn.execute(
            "SELECT id, type, source, amount, net, payout, available_on FROM balance_transactions "
            "WHERE merchant_id = %s ORDER BY seq",
            (merchant_id,),
        )
        return list(await cur.fetchall())


async def captured_eur_charge(core: Core, owner: Owner) -> None:
    new = NewCharge(
        amount=10_000,
        currency="eur",
        return_url="https://shop.example/ok",
        description=None,
        metadata={},
        cancel_url="https://shop.example/cancel",
        customer_email=None,
    )
    charge = await core.charges.create(owner, new)
    assert isinstance(charge, Charge)
    card = CardInput("4242424242424242", 12, 2099, "123")
    await core.checkout.complete(charge.id, "card", card, None)
    await core.charges.capture(owner, charge.id, None)


async def set_account(core: Core, merchant_id: str, account: str) -> None:
    async with core.pool.connection() as conn:
        await conn.execute(
            # In clear, as before migration 0023: the repository still reads such a row.
            "UPDATE merchants SET payout_account_number = %s, payout_account_sealed = NULL WHERE id = %s",
            (account, merchant_id),
        )


async def events_of(core: Core, merchant_id: str) -> list[dict[str, Any]]:
    async with core.pool.connection() as conn:
        cur = await conn.execute(
            "SELECT type, object_id, payload FROM events WHERE merchant_id = %s AND type LIKE 'payout.%%' "
            "ORDER BY created_at, id",
            (merchant_id,),
        )
        return list(await cur.fetchall())


async def test_a_payout_settles_the_available_rows_and_takes_them_out_of_the_balance(
    core: Core, clock: SettableClock
) -> None:
    owner = await new_owner(core)
    first = await captured_charge(core, owner, amount=10_000)
    second = await captured_charge(core, owner, amount=5_000)
    clock.set(WEDNESDAY)
    late = await captured_charge(core, owner, amount=3_000)  # pending until Friday: not in this payout
    assert await core.payouts.run_due(owner)

    (payout,) = (await core.payouts.list(owner)).items
    assert (payout.amount, payout.currency, payout.status) == (9_680 + 4_825, "usd", PayoutStatus.PENDING)
    assert payout.created == datetime(2026, 11, 25, tzinfo=UTC)
    assert payout.arrival_date == datetime(2026, 11, 26, tzinfo=UTC)
    rows = {r["source"]: r for r in await rows_of(core, owner.merchant_id)}
    assert rows[first.id]["payout"] == rows[second.id]["payout"] == payout.id
    assert rows[late.id]["payout"] is None
    assert (rows[payout.id]["type"], rows[payout.id]["net"]) == ("payout", -14_505)
    balance = await core.ledger.balance(owner)
    assert balance.available == (CurrencyAmount(0, "usd"),)
    assert balance.pending == (CurrencyAmount(2_883, "usd"),)
    listed = await core.ledger.list(owner, payout=payout.id)
    assert {t.source for t in listed.items} == {first.id, second.id, payout.id}
    (created,) = await events_of(core, owner.merchant_id)
    assert created["type"] == "payout.created"
    assert created["payload"]["data"]["object"]["id"] == payout.id
    assert created["payload"]["data"]["object"]["status"] == "pending"

    # The same day again: nothing more. The next day: paid, payout.completed.
    assert not await core.payouts.run_due(owner)
    clock.set(THURSDAY)
    assert await core.payouts.run_due(owner)
    assert (await core.payouts.get(owner, payout.id)).status is PayoutStatus.PAID
    assert [e["type"] for e in await events_of(core, owner.merchant_id)] == [
        "payout.created",
        "payout.completed",
    ]
    assert (await core.ledger.reconcile()).ok


async def test_below_the_minimum_nothing_is_paid_out(core: Core, clock: SettableClock) -> None:
    owner = await new_owner(core)
    await captured_charge(core, owner, amount=2_500)  # net 2 397 < 2 500
    clock.set(WEDNESDAY)
    assert not await core.payouts.run_due(owner)
    assert (await core.payouts.list(owner)).items == []


async def test_two_concurrent_runs_make_one_payout(core: Core, clock: SettableClock) -> None:
    owner = await new_owner(core)
    for _ in range(5):
        await captured_charge(core, owner, amount=10_000)
    clock.set(WEDNESDAY)
    results = await asyncio.gather(*(core.payouts.run_due(owner) for _ in range(4)))
    assert results.count(True) == 1
    (payout,) = (await core.payouts.list(owner)).items
    assert payout.amount == 5 * 9_680
    rows = await rows_of(core, owner.merchant_id)
    assert [r["type"] for r in rows].count("payout") == 1
    assert all(r["payout"] == payout.id for r in rows)
    assert len(await events_of(core, owner.merchant_id)) == 1
    assert (await core.ledger.reconcile()).ok


async def test_a_stale_plan_writes_nothing(core: Core, clock: SettableClock) -> None:
    owner = await new_owner(core)
    await captured_charge(core, owner, amount=10_000)
    await captured_charge(core, owner, amount=10_000)
    clock.set(WEDNESDAY)
    repo = PgPayoutRepository(core.pool, payout_accounts(core.settings))
    day = WEDNESDAY.date()
    rows = (await repo.unsettled(owner.merchant_id, owner.environment, WEDNESDAY))["usd"]
    plan = plan_payout(new_payout_id(), owner.merchant_id, False, "usd", day, rows)
    assert plan is not None
    # A plan listing one row fewer than its amount claims, or a row settled meanwhile: no write.
    short = replace(plan, transaction_ids=plan.transaction_ids[:1])
    assert not await repo.create(short, owner.environment, [])
    assert await core.payouts.run_due(owner)  # the run settles both rows
    again = plan_payout(new_payout_id(), owner.merchant_id, False, "usd", day + timedelta(days=1), rows)
    assert again is not None
    assert not await repo.create(again, owner.environment, [])  # its rows are settled already
    assert len((await core.payouts.list(owner)).items) == 1


async def test_a_failing_account_gets_its_funds_back(core: Core, clock: SettableClock) -> None:
    owner = await new_owner(core)
    await set_account(core, owner.merchant_id, FAILING_ACCOUNT)
    await captured_charge(core, owner, amount=10_000)
    clock.set(WEDNESDAY)
    await core.payouts.run_due(owner)
    clock.set(THURSDAY)
    await core.payouts.run_due(owner)
    payouts = (await core.payouts.list(owner, status="failed")).items
    (failed,) = payouts
    assert failed.failure_code == "account_closed"
    rows = await rows_of(core, owner.merchant_id)
    (back,) = [r for r in rows if r["type"] == "payout_failure"]
    assert (back["source"], back["net"]) == (failed.id, 9_680)
    types = [e["type"] for e in await events_of(core, owner.merchant_id)]
    # Thursday's failure and Thursday's new payout share their midnight.
    assert sorted(types) == ["payout.created", "payout.created", "payout.failed"]
    # The funds are back: Thursday's payout (made after the arrival) takes them out again.
    thursday = [p for p in (await core.payouts.list(owner)).items if p.id != failed.id]
    assert [p.amount for p in thursday] == [9_680]
    assert (await core.ledger.reconcile()).ok


async def test_the_run_claims_a_merchant_for_one_core_at_a_time(core: Core, clock: SettableClock) -> None:
    owner = await new_owner(core)
    await captured_charge(core, owner, amount=10_000)
    clock.set(WEDNESDAY)
    repo = PgPayoutRepository(core.pool, payout_accounts(core.settings))
    jobs = PgJobClaims(core.pool)
    mine = entity_id(owner)

    def at(when: datetime) -> JobClaim:
        return JobClaim.fresh("payouts", when, timedelta(minutes=5))

    first_claim, second_claim = at(WEDNESDAY), at(WEDNESDAY)
    first, second = await asyncio.gather(
        repo.claim_due(first_claim, 10_000), repo.claim_due(second_claim, 10_000)
    )
    assert [*first, *second].count(mine) == 1
    assert mine not in await repo.claim_due(at(WEDNESDAY), 10_000)  # held
    for claim in (first_claim, second_claim):
        await jobs.release(claim, [mine])
    again = at(WEDNESDAY)
    assert mine in await repo.claim_due(again, 10_000)
    await jobs.release(again, [mine])
    await core.payouts.run_due(owner)
    # Paid out for the day: no longer due until it arrives.
    assert mine not in await repo.claim_due(at(WEDNESDAY), 10_000)
    assert mine in await repo.claim_due(at(THURSDAY), 10_000)


async def test_the_sweep_runs_a_merchants_payouts_after_its_sandbox_clock_moves(core: Core) -> None:
    owner = await new_owner(core)
    await captured_charge(core, owner, amount=10_000)
    now = await core.test_clock.now(owner)
    await core.test_clock.advance(owner, int((now + timedelta(days=3)).timestamp()))
    (payout,) = (await core.payouts.list(owner)).items
    assert payout.status is PayoutStatus.PENDING


async def test_two_cores_at_once_make_one_payout_per_merchant_and_currency(
    core: Core, core_settings: Settings, clock: SettableClock
) -> None:
    other = await make_core(core_settings, clock)
    try:
        owners = [await new_owner(core) for _ in range(3)]
        for owner in owners:
            await captured_charge(core, owner, amount=10_000)
        clock.set(WEDNESDAY)
        runs = [c.sweep("payouts").run_once(owner) for owner in owners for c in (core, other)]
        runs += [c.sweep("payouts").run_once() for c in (core, other)]
        await asyncio.gather(*runs)
        for owner in owners:
            (payout,) = (await core.payouts.list(owner)).items
            assert payout.amount == 9_680
            assert len(await events_of(core, owner.merchant_id)) == 1
        assert (await core.ledger.reconcile()).ok
    finally:
        await other.close()


async def test_reconciliation_names_a_payout_without_its_row_or_with_rows_of_another_amount(
    core: Core, clock: SettableClock
) -> None:
    owner = await new_owner(core)
    await captured_charge(core, owner, amount=10_000)
    await captured_charge(core, owner, amount=5_000)
    clock.set(WEDNESDAY)
    await core.payouts.run_due(owner)
    (payout,) = (await core.payouts.list(owner)).items
    async with core.pool.connection() as conn:
        await conn.execute(
            "DELETE FROM balance_transactions WHERE type = 'payout' AND source = %s", (payout.id,)
        )
        await conn.execute(
            "UPDATE balance_transactions SET payout = NULL WHERE id = "
            "(SELECT id FROM balance_transactions WHERE payout = %s LIMIT 1)",
            (payout.id,),
        )
    report = await core.ledger.reconcile()
    found = {(f.kind, f.source) for f in report.findings if f.merchant_id == owner.merchant_id}
    assert found == {(FindingKind.MISSING_ROW, payout.id), (FindingKind.AMOUNT_MISMATCH, payout.id)}


async def test_a_settlement_currency_converts_the_other_balances_into_one_payout(
    core: Core, clock: SettableClock
) -> None:
    owner = await new_owner(core)
    async with core.pool.connection() as conn:
        await conn.execute(
            "UPDATE merchants SET settlement_currency = 'usd' WHERE id = %s", (owner.merchant_id,)
        )
    await captured_charge(core, owner, amount=10_000)  # usd net 9 680
    await captured_eur_charge(core, owner)  # eur net 9 680
    clock.set(WEDNESDAY)
    assert await core.payouts.run_due(owner)
    (payout,) = (await core.payouts.list(owner)).items
    # €96.80 at 1.0869565217 less 1 % = 1.0760869565 → $104.17
    assert (payout.currency, payout.amount) == ("usd", 9_680 + 10_417)
    conversions = list((await core.ledger.list(owner, type="conversion")).items)
    assert sorted(
        (t.currency, t.amount, str(t.exchange_rate), str(t.mid_market_rate)) for t in conversions
    ) == [
        ("eur", -9_680, "1.0760869565", "1.0869565217"),
        ("usd", 10_417, "1.0760869565", "1.0869565217"),
    ]
    assert all(t.payout == payout.id and t.source == payout.id for t in conversions)
    balance = await core.ledger.balance(owner)
    assert balance.available == (CurrencyAmount(0, "eur"), CurrencyAmount(0, "usd"))
    assert (await core.ledger.reconcile()).ok


async def test_one_clock_advance_pays_out_the_credits_of_the_invoices_it_bills(core: Core) -> None:
    """The billing run goes before the payout run on an advance: a credit booked by the advance (dated when
    its invoice was paid, in the past) is in the payout of the same advance, not the next day's."""
    owner = await new_owner(core)
    price_id = await monthly_price(core, owner, amount=5_000, trial=1)  # above the 2500 minimum
    subscription = await core.subscriptions.create(
        owner,
        customer_id=await customer_with_card(core, owner),
        price_id=price_id,
        collection_method=None,
        tax_rate_id=None,
        metadata={},
    )
    # The trial ends on Monday 12:00 and is billed then; its credit is available on Wednesday 12:00, and
    # Thursday 00:00 pays it out.
    now = await core.test_clock.now(owner)
    await core.test_clock.advance(owner, int((now + timedelta(days=3, hours=18)).timestamp()))
    billed = await core.subscriptions.get(owner, subscription.id)
    assert billed.latest_invoice is not None
    (payout,) = (await core.payouts.list(owner)).items
    rows = {r["source"]: r for r in await rows_of(core, owner.merchant_id)}
    credit = rows[billed.latest_invoice]
    assert credit["type"] == "subscription" and credit["payout"] == payout.id
    # 5000 − round_half_up(5000 × 0.029 + 30) = 5000 − 175 = 4825
    assert payout.amount == credit["net"] == 4_825
