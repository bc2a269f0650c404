"""Tax rate resolution against the stored rates (DESIGN §9): the subscription's rate, else the owner's
active rate for the address (country and state, then country alone), else none; tenants never mix."""

from __future__ import annotations

import pytest

from core_server.billing.domain.tax import apply_rate
from core_server.bootstrap import Core
from core_server.kernel.application.owner import Owner
from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.errors import NotFound
from tests.integration.core.factories import new_owner

pytestmark = pytest.mark.integration


async def test_resolution_order_and_scoping(core: Core) -> None:
    owner = await new_owner(core)
    rates = core.tax_rates
    country = await rates.create(owner, percentage="5", display_name="US", inclusive=False, country="us")
    state = await rates.create(
        owner, percentage="8.25", display_name="CA", inclusive=False, country="US", state="ca"
    )
    ny = await rates.create(
        owner, percentage="8.875", display_name="NY", inclusive=False, country="US", state="NY"
    )
    await rates.update(owner, ny.id, active=False)
    vat = await rates.create(owner, percentage="19", display_name="VAT", inclusive=True, country="DE")
    explicit = await rates.create(owner, percentage="3", display_name="Special", inclusive=False)

    assert await rates.resolve(owner, None, "US", "CA") == state
    assert await rates.resolve(owner, None, "us", "tx") == country
    assert await rates.resolve(owner, None, "US", "NY") == country  # the NY rate is inactive
    assert await rates.resolve(owner, None, "DE", None) == vat
    assert await rates.resolve(owner, None, "FR", None) is None
    assert await rates.resolve(owner, None, None, None) is None
    # The subscription's rate wins over the address, even one with no country.
    assert await rates.resolve(owner, explicit.id, "US", "CA") == explicit

    resolved = await rates.resolve(owner, None, "US", "CA")
    assert apply_rate(1000, resolved).total == 1083  # 82.5 → 83
    assert apply_rate(1190, await rates.resolve(owner, None, "DE", None)).tax == 190

    # Another merchant, and the same merchant's LIVE environment, see none of these rates.
    stranger = await new_owner(core)
    live = Owner(owner.merchant_id, Environment.LIVE)
    for other in (stranger, live):
        assert await rates.resolve(other, None, "US", "CA") is None
        with pytest.raises(NotFound):
            await rates.resolve(other, explicit.id, "US", "CA")


async def test_an_explicit_rate_keeps_its_terms_through_updates(core: Core) -> None:
    """A core remembers the explicit rates it resolved (their terms never change); a rename or a
    deactivation changes nothing a resolution answers, and still applies (DESIGN §9: the subscription's
    rate wins, active or not)."""
    owner = await new_owner(core)
    rates = core.tax_rates
    explicit = await rates.create(owner, percentage="7.5", display_name="Old", inclusive=True)
    first = await rates.resolve(owner, explicit.id, None, None)
    await rates.update(owner, explicit.id, display_name="New", active=False)
    again = await rates.resolve(owner, explicit.id, "US", "CA")
    assert again is not None and first is not None
    assert (again.id, again.percentage, again.inclusive) == (explicit.id, explicit.percentage, True)
    assert apply_rate(1075, again).tax == 75
    assert (await rates.get(owner, explicit.id)).display_name == "New"  # reads for display stay fresh
