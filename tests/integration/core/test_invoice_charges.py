"""Invoice charges on real PostgreSQL (DESIGN §9): one charge per (invoice, attempt), whatever the number
of callers, listed and refundable like any charge."""

from __future__ import annotations

import asyncio
import dataclasses
import uuid

import pytest

from core_server.bootstrap import Core
from core_server.kernel.application.clocks import SettableClock
from core_server.kernel.application.owner import Owner
from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.errors import InvalidRequest
from core_server.kernel.domain.fees import net_amount, transaction_fee
from core_server.payments.application.invoice_charges import InvoiceChargeRequest, VaultedSource
from core_server.payments.domain.charge import Charge, ChargeStatus
from core_server.payments.domain.payment import CardDetails, PaypalDetails
from core_server.payments.domain.sandbox import SandboxBehaviour, sandbox_token
from core_server.payments.storage.charge_repository import PgChargeRepository
from tests.integration.core.factories import new_owner

pytestmark = pytest.mark.integration


def new_invoice_id() -> str:
    return "si_" + uuid.uuid4().hex


def card(behaviour: SandboxBehaviour = SandboxBehaviour.APPROVE) -> VaultedSource:
    return VaultedSource(
        method="card",
        token=sandbox_token(behaviour),
        card_brand="visa",
        card_last4="4242",
        exp_month=12,
        exp_year=2040,
        funding="credit",
        country="US",
    )


def request(
    owner: Owner, invoice_id: str, attempt: int = 1, source: VaultedSource | None = None, amount: int = 2_900
) -> InvoiceChargeRequest:
    return InvoiceChargeRequest(
        merchant_id=owner.merchant_id,
        environment=owner.environment,
        invoice_id=invoice_id,
        attempt=attempt,
        amount=amount,
        currency="usd",
        description="Pro plan",
        customer_email="buyer@example.com",
        source=source or card(),
    )


async def rows_of(core: Core, invoice_id: str) -> list[tuple[str, int]]:
    async with core.pool.connection() as conn:
        cursor = await conn.execute(
            "SELECT id, invoice_attempt FROM charges WHERE invoice_id = %s ORDER BY invoice_attempt",
            (invoice_id,),
        )
        return [(row["id"], row["invoice_attempt"]) for row in await cursor.fetchall()]


async def event_types(core: Core, charge_id: str) -> list[str]:
    async with core.pool.connection() as conn:
        cursor = await conn.execute("SELECT type FROM events WHERE object_id = %s ORDER BY seq", (charge_id,))
        return [row["type"] for row in await cursor.fetchall()]


async def test_an_approved_attempt_is_a_captured_charge_of_the_invoice(
    core: Core, clock: SettableClock
) -> None:
    owner = await new_owner(core)
    invoice_id = new_invoice_id()
    charge = await core.invoice_charges.attempt(request(owner, invoice_id))

    assert charge.status is ChargeStatus.CAPTURED
    assert (charge.invoice_id, charge.invoice_attempt) == (invoice_id, 1)
    assert charge.amount_captured == 2_900
    assert (charge.fee, charge.net) == (transaction_fee(2_900), net_amount(2_900))
    assert charge.created == clock.now().replace(microsecond=0)  # the merchant's clock
    assert isinstance(charge.payment_details, CardDetails) and charge.payment_details.last4 == "4242"
    assert not charge.pending_events
    assert await event_types(core, charge.id) == ["charge.created", "charge.completed"]

    stored = await core.charges.get(owner, charge.id)
    assert stored.invoice_id == invoice_id and stored.status is ChargeStatus.CAPTURED
    assert core.views.charge(stored)["invoice"] == invoice_id


async def test_the_dunning_token_fails_the_charge_with_generic_decline(core: Core) -> None:
    owner = await new_owner(core)
    charge = await core.invoice_charges.attempt(
        request(owner, new_invoice_id(), source=card(SandboxBehaviour.DECLINE_GENERIC))
    )
    assert charge.status is ChargeStatus.FAILED and charge.failure_code == "generic_decline"
    assert await event_types(core, charge.id) == ["charge.created", "charge.failed"]


async def test_a_paypal_agreement_is_charged_at_once(core: Core) -> None:
    owner = await new_owner(core)
    source = VaultedSource(
        method="paypal",
        token=sandbox_token(SandboxBehaviour.PENDING),
        paypal_email="pending@sandbox.paypal.test",
    )
    charge = await core.invoice_charges.attempt(request(owner, new_invoice_id(), source=source))
    assert charge.status is ChargeStatus.CAPTURED
    assert charge.payment_details == PaypalDetails("pending@sandbox.paypal.test")


async def test_the_same_attempt_twice_is_the_same_charge(core: Core) -> None:
    owner = await new_owner(core)
    invoice_id = new_invoice_id()
    first = await core.invoice_charges.attempt(request(owner, invoice_id))
    # A replay after a crash, even with a token that would now decline: nothing is asked or written again.
    again = await core.invoice_charges.attempt(
        request(owner, invoice_id, source=card(SandboxBehaviour.DECLINE_GENERIC))
    )
    assert again.id == first.id and again.status is ChargeStatus.CAPTURED
    assert await rows_of(core, invoice_id) == [(first.id, 1)]
    assert await event_types(core, first.id) == ["charge.created", "charge.completed"]


async def test_concurrent_attempts_write_one_charge(core: Core) -> None:
    owner = await new_owner(core)
    invoice_id = new_invoice_id()
    charges = await asyncio.gather(
        *(core.invoice_charges.attempt(request(owner, invoice_id)) for _ in range(4))
    )
    assert len({charge.id for charge in charges}) == 1
    assert await rows_of(core, invoice_id) == [(charges[0].id, 1)]
    assert await event_types(core, charges[0].id) == ["charge.created", "charge.completed"]


async def test_a_racer_that_read_before_the_write_gets_the_written_charge(
    core: Core, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The race made certain: the second caller's read misses the first's charge, so its insert meets the
    unique index, and it answers with the charge that was written first."""
    owner = await new_owner(core)
    invoice_id = new_invoice_id()
    first = await core.invoice_charges.attempt(request(owner, invoice_id))
    find = PgChargeRepository.find_invoice_attempt
    misses = [None]

    async def stale_first_read(self: PgChargeRepository, invoice: str, attempt: int) -> Charge | None:
        return misses.pop() if misses else await find(self, invoice, attempt)

    monkeypatch.setattr(PgChargeRepository, "find_invoice_attempt", stale_first_read)
    second = await core.invoice_charges.attempt(request(owner, invoice_id))
    assert not misses  # the stale read happened
    assert second.id == first.id and second.status is ChargeStatus.CAPTURED
    assert await rows_of(core, invoice_id) == [(first.id, 1)]
    assert await event_types(core, first.id) == ["charge.created", "charge.completed"]


async def test_a_new_invoice_skips_the_look_up_and_a_takeover_still_charges_once(
    core: Core, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`invoice_is_new`: the caller's own turn opened the invoice, so no look-up is made. If another core
    took the subscription over and charged it meanwhile, the insert meets the unique index and the caller
    gets that charge back — one charge, as for two callers racing past the look-up."""
    owner = await new_owner(core)
    invoice_id = new_invoice_id()
    looked_up: list[str] = []
    find = PgChargeRepository.find_invoice_attempt

    async def counted(self: PgChargeRepository, invoice: str, attempt: int) -> Charge | None:
        looked_up.append(invoice)
        return await find(self, invoice, attempt)

    monkeypatch.setattr(PgChargeRepository, "find_invoice_attempt", counted)
    fresh = dataclasses.replace(request(owner, invoice_id), invoice_is_new=True)
    first = await core.invoice_charges.attempt(fresh)
    assert looked_up == [] and first.status is ChargeStatus.CAPTURED
    again = await core.invoice_charges.attempt(fresh)  # the takeover's charge is already written
    assert again.id == first.id
    assert looked_up == [invoice_id]  # only to fetch the charge the unique index named
    assert await rows_of(core, invoice_id) == [(first.id, 1)]
    assert await event_types(core, first.id) == ["charge.created", "charge.completed"]


async def test_each_attempt_number_is_its_own_charge(core: Core) -> None:
    owner = await new_owner(core)
    invoice_id = new_invoice_id()
    failed = await core.invoice_charges.attempt(
        request(owner, invoice_id, 1, card(SandboxBehaviour.DECLINE_GENERIC))
    )
    paid = await core.invoice_charges.attempt(request(owner, invoice_id, 2))
    assert failed.id != paid.id
    assert await rows_of(core, invoice_id) == [(failed.id, 1), (paid.id, 2)]


async def test_an_invoice_charge_is_listed_and_refundable_like_any_charge(core: Core) -> None:
    owner = await new_owner(core)
    charge = await core.invoice_charges.attempt(request(owner, new_invoice_id(), amount=5_000))

    page = await core.charges.list(
        owner, limit=10, status=None, created_after=None, created_before=None, starting_after=None
    )
    assert [c.id for c in page.items] == [charge.id]

    result = await core.charges.refund(owner, charge.id, 2_000, "customer_request")
    assert isinstance(result, tuple)
    refund, refunded = result
    assert refund.amount == 2_000 and refunded.status is ChargeStatus.PARTIALLY_REFUNDED
    assert refunded.invoice_id == charge.invoice_id
    stored = await core.charges.get(owner, charge.id)
    assert stored.amount_refunded == 2_000 and stored.invoice_attempt == 1


async def test_an_amount_below_the_minimum_is_refused_before_any_charge(core: Core) -> None:
    owner = await new_owner(core)
    invoice_id = new_invoice_id()
    with pytest.raises(InvalidRequest) as refused:
        await core.invoice_charges.attempt(request(owner, invoice_id, amount=49))
    assert refused.value.code == "amount_too_small"
    assert await rows_of(core, invoice_id) == []


async def test_live_without_a_processor_fails_the_attempt_as_processing_error(core: Core) -> None:
    """DESIGN §9: never a success by accident, and a written failure so dunning proceeds."""
    owner = await new_owner(core, Environment.LIVE)
    invoice_id = new_invoice_id()
    charge = await core.invoice_charges.attempt(request(owner, invoice_id))
    assert charge.status is ChargeStatus.FAILED and charge.failure_code == "processing_error"
    assert charge.environment is Environment.LIVE and not charge.amount_captured
    assert await rows_of(core, invoice_id) == [(charge.id, 1)]
    assert await event_types(core, charge.id) == ["charge.created", "charge.failed"]
    again = await core.invoice_charges.attempt(request(owner, invoice_id))
    assert again.id == charge.id and await rows_of(core, invoice_id) == [(charge.id, 1)]
