"""A create is one statement: charge, event, deliveries and the key's answer together, or nothing.

The key of a create is claimed in that statement (FirstClaim), so these pin down the idempotency
contract (DESIGN §6) on that path: replay, mismatch, a running duplicate, validation after the key,
and the outbox rules outbox.py applies elsewhere (subscriptions, delivery ids, the NOTIFY).
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import pytest

from core_server.bootstrap import Core
from core_server.kernel.application.owner import Owner
from core_server.kernel.application.ports import IdempotencyRequest
from core_server.kernel.domain.errors import DomainError, IdempotencyConflict
from core_server.kernel.domain.ids import new_id
from core_server.kernel.domain.replays import Replay
from core_server.payments.application.charges import NewCharge
from core_server.payments.domain.charge import Charge
from tests.integration.core.factories import new_owner
from tests.integration.core.test_outbox_atomicity import listening, notifications

pytestmark = pytest.mark.integration

NEW = NewCharge(
    amount=2500,
    currency="usd",
    return_url="https://shop.example/ok",
    description="one",
    metadata={"order": "7"},
    cancel_url=None,
    customer_email=None,
)


def render(charge: Charge) -> bytes:
    return f"answer:{charge.id}".encode()


async def create(
    core: Core, owner: Owner, request: IdempotencyRequest, new: NewCharge = NEW
) -> Charge | Replay:
    """As CreateCharge runs it (idempotent_rpc with first_claim): the key claimed by the insert itself."""
    return await core.runner.run(
        request, render, lambda claim: core.charges.create(owner, new, claim), first_claim=True
    )


def key(scope: str, fingerprint: str = "fp-a") -> IdempotencyRequest:
    return IdempotencyRequest(scope, new_id("k-", 12), fingerprint)


async def rows(core: Core, query: str, *args: object) -> list[dict[str, Any]]:
    async with core.pool.connection() as conn:
        return await (await conn.execute(query, args)).fetchall()


async def test_a_keyed_create_stores_its_answer_and_a_retry_replays_it(core: Core) -> None:
    owner = await new_owner(core)
    request = key(f"{owner.merchant_id}:test")
    first = await create(core, owner, request)
    again = await create(core, owner, request)
    assert isinstance(first, Charge) and isinstance(again, Replay)
    assert again.response == render(first)
    stored = await rows(core, "SELECT state FROM idempotency_keys WHERE key = %s", request.key)
    assert stored == [{"state": "completed"}]
    made = await rows(core, "SELECT id FROM charges WHERE idempotency_key = %s", request.key)
    assert made == [{"id": first.id}]
    events = await rows(core, "SELECT type FROM events WHERE object_id = %s", first.id)
    assert events == [{"type": "charge.created"}]


async def test_the_key_with_another_body_writes_nothing_and_is_a_conflict(core: Core) -> None:
    owner = await new_owner(core)
    request = key(f"{owner.merchant_id}:test")
    await create(core, owner, request)
    other = IdempotencyRequest(request.scope, request.key, "fp-b")
    with pytest.raises(IdempotencyConflict):
        await create(core, owner, other)
    with pytest.raises(IdempotencyConflict):  # the 409 wins over the invalid amount
        await create(core, owner, other, dataclasses.replace(NEW, amount=1))
    assert len(await rows(core, "SELECT id FROM charges WHERE merchant_id = %s", owner.merchant_id)) == 1


async def test_an_invalid_create_with_a_fresh_key_stores_nothing(core: Core) -> None:
    owner = await new_owner(core)
    request = key(f"{owner.merchant_id}:test")
    with pytest.raises(DomainError):
        await create(core, owner, request, dataclasses.replace(NEW, amount=1))
    assert await rows(core, "SELECT 1 FROM idempotency_keys WHERE key = %s", request.key) == []
    assert isinstance(await create(core, owner, request), Charge)


async def test_concurrent_duplicates_create_one_charge(core: Core) -> None:
    owner = await new_owner(core)
    request = key(f"{owner.merchant_id}:test")

    async def attempt() -> str:
        try:
            result = await create(core, owner, request)
        except IdempotencyConflict:
            return "busy"
        return "replay" if isinstance(result, Replay) else "created"

    outcomes = await asyncio.gather(*(attempt() for _ in range(12)))
    assert outcomes.count("created") == 1
    assert set(outcomes) <= {"created", "replay", "busy"}
    made = await rows(core, "SELECT count(*) AS n FROM charges WHERE idempotency_key = %s", request.key)
    assert made == [{"n": 1}]


async def test_a_create_queues_deliveries_for_subscribed_endpoints_and_wakes_dispatchers(
    core: Core, database_url: str
) -> None:
    owner = await new_owner(core)
    everything = await core.webhooks.create(owner, "http://127.0.0.1:9/all", ["*"], None)
    await core.webhooks.create(owner, "http://127.0.0.1:9/refunds", ["charge.refunded"], None)
    created = await core.webhooks.create(owner, "http://127.0.0.1:9/created", ["charge.created"], None)
    async with listening(database_url) as listener:
        charge = await core.charges.create(owner, NEW)
        assert isinstance(charge, Charge)
        assert await notifications(listener, 2.0) == 1
    deliveries = await rows(
        core,
        "SELECT d.id, d.endpoint_id FROM webhook_deliveries d JOIN events e ON e.id = d.event_id "
        "WHERE e.object_id = %s ORDER BY d.endpoint_id",
        charge.id,
    )
    assert sorted(d["endpoint_id"] for d in deliveries) == sorted([everything.id, created.id])
    for delivery in deliveries:
        delivery_id = str(delivery["id"])
        assert delivery_id.startswith("whd_") and len(delivery_id) == 28 and delivery_id[4:].isalnum()


async def test_a_create_without_receiving_endpoints_sends_no_notify(core: Core, database_url: str) -> None:
    owner = await new_owner(core)
    async with listening(database_url) as listener:
        await core.charges.create(owner, NEW)
        assert await notifications(listener, 0.3) == 0
