"""The balance ledger on the real database (DESIGN §9): each money movement's balance transaction is
written by the movement's own statement (none for a stale fence), the balance follows the merchant's
clock, and reconciliation passes on a sound ledger and names a planted mismatch."""

from __future__ import annotations

import asyncio
import copy
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from core_server.bootstrap import Core
from core_server.db.errors import StaleFence
from core_server.db.pool import DbPool
from core_server.kernel.application.clocks import SettableClock
from core_server.kernel.application.owner import Owner
from core_server.kernel.application.ports import TurnWrite
from core_server.ledger.domain.balance import CurrencyAmount
from core_server.ledger.domain.reconciliation import FindingKind
from core_server.payments.domain.dispute import Dispute
from core_server.payments.storage.charge_repository import PgChargeRepository
from tests.integration.core.factories import authorized_charge, captured_charge, new_owner
from tests.integration.core.test_subscription_service import customer_with_card, monthly_price

pytestmark = pytest.mark.integration


async def rows_of(pool: DbPool, merchant_id: str) -> list[dict[str, Any]]:
    async with pool.connection() as conn:
        cur = await conn.execute(
            "SELECT type, source, amount, fee, tax, net, currency, available_on, created_at, payout "
            "FROM balance_transactions WHERE merchant_id = %s ORDER BY seq",
            (merchant_id,),
        )
        return list(await cur.fetchall())


def shape(rows: list[dict[str, Any]]) -> list[tuple[str, str, int, int, int, int]]:
    return [(r["type"], r["source"], r["amount"], r["fee"], r["tax"], r["net"]) for r in rows]


async def test_capture_refund_and_a_won_dispute_leave_their_rows_and_reconcile(
    core: Core, clock: SettableClock
) -> None:
    owner = await new_owner(core)
    charge = await captured_charge(core, owner, amount=10_000)
    refund, _ = await core.charges.refund(owner, charge.id, 2_500, None)
    dispute = await core.charges.open_dispute(owner, charge.id)
    assert isinstance(dispute, Dispute)
    await core.charges.close_dispute_by_id(owner, dispute.id, "won")

    rows = await rows_of(core.pool, owner.merchant_id)
    assert shape(rows) == [
        ("charge", charge.id, 10_000, 320, 0, 9_680),
        ("refund", refund.id, -2_500, 0, 0, -2_500),
        ("dispute", dispute.id, -7_500, 1_500, 0, -9_000),
        ("dispute_won", dispute.id, 7_500, -1_500, 0, 9_000),
    ]
    assert all(r["available_on"] == r["created_at"] + timedelta(days=2) for r in rows)
    assert all(r["currency"] == "usd" and r["payout"] is None for r in rows)

    report = await core.ledger.reconcile()
    assert report.ok, report.findings
    (line,) = [x for x in report.lines if x.merchant_id == owner.merchant_id]
    assert (line.pending, line.available, line.rows_net) == (7_180, 0, 7_180)


async def test_a_lost_dispute_keeps_its_debit_and_fee(core: Core) -> None:
    owner = await new_owner(core)
    charge = await captured_charge(core, owner, amount=5_000)
    dispute = await core.charges.open_dispute(owner, charge.id)
    assert isinstance(dispute, Dispute)
    await core.charges.close_dispute_by_id(owner, dispute.id, "lost")
    assert shape(await rows_of(core.pool, owner.merchant_id)) == [
        ("charge", charge.id, 5_000, 175, 0, 4_825),
        ("dispute", dispute.id, -5_000, 1_500, 0, -6_500),
    ]
    balance = await core.ledger.balance(owner)
    assert balance.pending == (CurrencyAmount(-1_675, "usd"),)
    assert (await core.ledger.reconcile()).ok


async def test_a_stale_fence_writes_no_balance_transaction(core: Core) -> None:
    owner = await new_owner(core)
    charge = await authorized_charge(core, owner)
    repo = PgChargeRepository(core.pool)
    state_a, fence_a = await repo.load_for_activation(charge.id)  # type: ignore[misc]
    await repo.load_for_activation(charge.id)  # another process takes the charge over

    stale = copy.deepcopy(state_a)
    stale.capture(None, state_a.created)
    assert stale.pending_ledger  # the capture made its row ...
    with pytest.raises(StaleFence):
        await repo.save(stale, fence_a, TurnWrite(core.views.events(stale)))
    assert await rows_of(core.pool, owner.merchant_id) == []  # ... and the fence kept it out


async def test_a_paid_invoice_books_one_subscription_row_and_no_charge_row(core: Core) -> None:
    owner = await new_owner(core)
    customer_id = await customer_with_card(core, owner)
    price_id = await monthly_price(core, owner, amount=2_000)
    subscription = await core.subscriptions.create(
        owner,
        customer_id=customer_id,
        price_id=price_id,
        collection_method=None,
        tax_rate_id=None,
        metadata={},
    )
    assert subscription.latest_invoice is not None
    invoice = await core.invoices.get(owner, subscription.latest_invoice)
    assert shape(await rows_of(core.pool, owner.merchant_id)) == [
        ("subscription", invoice.id, 2_000, 88, 0, 1_912),
    ]
    # Later saves of the subscription hand the paid invoice over again: still one row.
    await core.subscriptions.cancel(owner, subscription.id, at_period_end=True, prorate=False)
    assert len(await rows_of(core.pool, owner.merchant_id)) == 1
    assert (await core.ledger.reconcile()).ok


async def test_funds_become_available_two_days_later_at_the_merchants_time(
    core: Core, clock: SettableClock
) -> None:
    owner = await new_owner(core)
    await captured_charge(core, owner, amount=10_000)
    assert await core.ledger.balance(owner) == await core.ledger.balance(owner)
    before = await core.ledger.balance(owner)
    assert (before.available, before.pending) == (
        (CurrencyAmount(0, "usd"),),
        (CurrencyAmount(9_680, "usd"),),
    )
    clock.advance(timedelta(days=2))
    after = await core.ledger.balance(owner)
    assert (after.available, after.pending) == ((CurrencyAmount(9_680, "usd"),), (CurrencyAmount(0, "usd"),))
    page = await core.ledger.list(owner)
    assert [t.status.value for t in page.items] == ["available"]


async def test_reconciliation_names_a_missing_row_a_changed_row_and_an_orphan(core: Core) -> None:
    owner = await new_owner(core)
    first = await captured_charge(core, owner, amount=10_000)
    second = await captured_charge(core, owner, amount=3_000)
    assert (await core.ledger.reconcile()).ok
    async with core.pool.connection() as conn:
        await conn.execute("DELETE FROM balance_transactions WHERE source = %s", (first.id,))
        await conn.execute(
            "UPDATE balance_transactions SET amount = amount + 1, net = net + 1 WHERE source = %s",
            (second.id,),
        )
        await conn.execute(
            "INSERT INTO balance_transactions (id, merchant_id, environment, type, source, amount, fee, net, "
            "currency, available_on, created_at) "
            "VALUES ('txn_planted0000000000000000', %s, 'test', 'refund', 're_nosuchrefund', -100, 0, -100, "
            "'usd', now(), now())",
            (owner.merchant_id,),
        )
    report = await core.ledger.reconcile()
    assert not report.ok
    found = {(f.kind, f.source) for f in report.findings if f.merchant_id == owner.merchant_id}
    assert found == {
        (FindingKind.MISSING_ROW, first.id),
        (FindingKind.AMOUNT_MISMATCH, second.id),
        (FindingKind.ORPHAN_ROW, "txn_planted0000000000000000"),
    }


async def test_tenants_see_only_their_own_balance(core: Core) -> None:
    a = await new_owner(core)
    b = await new_owner(core)
    await captured_charge(core, a, amount=10_000)
    assert (await core.ledger.balance(b)).pending == ()
    assert (await core.ledger.list(b)).items == []
    live_a = Owner(a.merchant_id, a.environment.__class__("live"))
    assert (await core.ledger.balance(live_a)).pending == ()


def run_reconcile(database_url: str) -> subprocess.CompletedProcess[str]:
    script = Path(__file__).resolve().parents[3] / "scripts" / "reconcile.py"
    return subprocess.run(
        [sys.executable, str(script), "--direct"],
        env={**os.environ, "DATABASE_URL": database_url},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


async def test_the_reconcile_command_exits_non_zero_on_a_mismatch(
    core: Core, clock: SettableClock, database_url: str
) -> None:
    # The command reads the system clock; the charge must be made at that time too, or its funds are
    # available or pending depending on the day the suite runs (the fixture clock is a fixed date).
    clock.set(datetime.now(UTC))
    owner = await new_owner(core)
    charge = await captured_charge(core, owner, amount=10_000)
    ok = await asyncio.to_thread(run_reconcile, database_url)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert f"{owner.merchant_id} test usd: available 0 pending 9680 = rows 9680 (1 rows)" in ok.stdout
    async with core.pool.connection() as conn:
        await conn.execute("DELETE FROM balance_transactions WHERE source = %s", (charge.id,))
    broken = await asyncio.to_thread(run_reconcile, database_url)
    assert broken.returncode == 1, broken.stdout + broken.stderr
    assert f"MISMATCH missing_row {owner.merchant_id} test usd {charge.id}" in broken.stdout


def backfill_statement() -> str:
    """Migration 0013's backfill, run again: what it wrote for movements made before the ledger."""
    migration = Path(__file__).resolve().parents[3] / "core_server" / "db" / "migrations" / "0013_ledger.sql"
    text = migration.read_text()
    return text[text.index("INSERT INTO balance_transactions") :]


async def test_the_backfill_books_movements_made_before_the_ledger_once(core: Core) -> None:
    owner = await new_owner(core)
    charge = await captured_charge(core, owner, amount=10_000)
    refund, _ = await core.charges.refund(owner, charge.id, 1_000, None)
    dispute = await core.charges.open_dispute(owner, charge.id)
    assert isinstance(dispute, Dispute)
    await core.charges.close_dispute_by_id(owner, dispute.id, "won")
    customer_id = await customer_with_card(core, owner)
    price_id = await monthly_price(core, owner, amount=2_000)
    subscription = await core.subscriptions.create(
        owner,
        customer_id=customer_id,
        price_id=price_id,
        collection_method=None,
        tax_rate_id=None,
        metadata={},
    )
    written = shape(await rows_of(core.pool, owner.merchant_id))
    async with core.pool.connection() as conn:
        await conn.execute("DELETE FROM balance_transactions WHERE merchant_id = %s", (owner.merchant_id,))
    assert not (await core.ledger.reconcile()).ok
    async with core.pool.connection() as conn:
        await conn.execute(backfill_statement())
        await conn.execute(backfill_statement())  # a second run adds nothing
    backfilled = await rows_of(core.pool, owner.merchant_id)
    assert sorted(shape(backfilled)) == sorted(written)
    assert all(r["created_at"].microsecond == 0 for r in backfilled)
    assert all(r["available_on"] == r["created_at"] + timedelta(days=2) for r in backfilled)
    assert {r[1] for r in written} == {charge.id, refund.id, dispute.id, subscription.latest_invoice}
    assert (await core.ledger.reconcile()).ok


async def test_reconciliation_names_a_customer_balance_other_than_its_transactions(core: Core) -> None:
    """DESIGN §10.1: a customer's credit balance is the sum of its transactions, each ending balance
    the running sum; `make reconcile` names a balance or a transaction that breaks either."""
    owner = await new_owner(core)
    created = await core.customers.create(
        owner, email="credit@example.com", name=None, address=None, metadata={}
    )
    made = await core.customer_balances.adjust(
        owner, created.id, amount_cents=2_500, currency="usd", description="Goodwill"
    )
    assert made.ending_balance_cents == 2_500
    assert (await core.customers.get(owner, created.id)).credit_balance == {"usd": 2_500}
    assert (await core.ledger.reconcile()).ok
    async with core.pool.connection() as conn:
        await conn.execute(
            "UPDATE customer_balances SET balance_cents = 2600 WHERE customer_id = %s", (created.id,)
        )
        await conn.execute(
            "UPDATE customer_balance_transactions SET ending_balance_cents = 1 WHERE id = %s", (made.id,)
        )
    report = await core.ledger.reconcile()
    found = {(f.kind, f.source) for f in report.findings if f.merchant_id == owner.merchant_id}
    assert found == {(FindingKind.CREDIT_MISMATCH, created.id), (FindingKind.CREDIT_MISMATCH, made.id)}
