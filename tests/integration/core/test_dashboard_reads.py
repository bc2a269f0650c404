"""The core reads the dashboard added (issue 24), on the real database: captured volume per day at the
merchant's time, the customer e-mail filter of the charge list, and a charge's own events."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest

from core_server.bootstrap import Core
from core_server.kernel.application.clocks import SettableClock
from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.errors import ParameterInvalid
from core_server.payments.application.charges import NewCharge
from core_server.payments.domain.charge import Charge
from tests.integration.core.factories import authorized_charge, captured_charge, new_owner

pytestmark = pytest.mark.integration


async def test_daily_volume_sums_captures_per_day_and_currency(core: Core, clock: SettableClock) -> None:
    owner = await new_owner(core)
    await captured_charge(core, owner, 1_000)
    await captured_charge(core, owner, 2_500)
    await authorized_charge(core, owner, 9_000)  # not captured: not volume
    other = await new_owner(core)
    await captured_charge(core, other, 7_700)  # another merchant's

    first, count, days = await core.charges.daily_volume(owner, 0)
    today = clock.now().replace(hour=0, minute=0, second=0, microsecond=0)
    assert count == 30 and first == today - timedelta(days=29)
    assert [(d.day, d.currency, d.amount, d.count) for d in days] == [(today, "usd", 3_500, 2)]

    live = replace(owner, environment=Environment.LIVE)
    assert list((await core.charges.daily_volume(live, 7))[2]) == []


async def test_daily_volume_follows_the_merchants_clock_and_its_range(
    core: Core, clock: SettableClock
) -> None:
    owner = await new_owner(core)
    await captured_charge(core, owner, 1_000)
    clock.advance(timedelta(days=3))
    await captured_charge(core, owner, 500)
    _, _, last_two = await core.charges.daily_volume(owner, 2)
    assert [(d.amount, d.count) for d in last_two] == [(500, 1)]  # the first capture is 3 days back
    _, _, week = await core.charges.daily_volume(owner, 7)
    assert [d.amount for d in week] == [1_000, 500]
    for days in (-1, 91):
        with pytest.raises(ParameterInvalid):
            await core.charges.daily_volume(owner, days)


async def _charge_for(core: Core, owner: object, email: str | None) -> Charge:
    new = NewCharge(
        amount=1_000,
        currency="usd",
        return_url="https://shop.example/ok",
        description=None,
        metadata={},
        cancel_url=None,
        customer_email=email,
    )
    charge = await core.charges.create(owner, new)  # type: ignore[arg-type]
    assert isinstance(charge, Charge)
    return charge


async def test_the_charge_list_filters_by_customer_email_case_insensitively(core: Core) -> None:
    owner = await new_owner(core)
    mine = await _charge_for(core, owner, "Ada@Example.com")
    await _charge_for(core, owner, "grace@example.com")
    await _charge_for(core, owner, None)
    page = await core.charges.list(
        owner,
        limit=10,
        status=None,
        created_after=None,
        created_before=None,
        starting_after=None,
        customer_email="ada@example.COM",
    )
    assert [c.id for c in page.items] == [mine.id] and page.total_count == 1
    other = await new_owner(core)
    none = await core.charges.list(
        other,
        limit=10,
        status=None,
        created_after=None,
        created_before=None,
        starting_after=None,
        customer_email="ada@example.com",
    )
    assert none.items == []


async def test_the_event_list_filters_by_object(core: Core) -> None:
    owner = await new_owner(core)
    first = await captured_charge(core, owner, 1_000)
    second = await authorized_charge(core, owner, 2_000)
    page = await core.events.list(owner, limit=50, type_filter=None, starting_after=None, object_id=first.id)
    assert page.items and {e.payload["data"]["object"]["id"] for e in page.items} == {first.id}
    assert "charge.created" in {e.type for e in page.items}
    everything = await core.events.list(owner, limit=50, type_filter=None, starting_after=None)
    assert {e.payload["data"]["object"]["id"] for e in everything.items} >= {first.id, second.id}
