"""Builders for integration tests: a merchant with a test owner, and charges in a given state."""

from __future__ import annotations

import uuid

from core_server.bootstrap import Core
from core_server.kernel.application.owner import Owner
from core_server.kernel.domain.environment import Environment
from core_server.payments.application.charges import NewCharge
from core_server.payments.domain.card import CardInput
from core_server.payments.domain.charge import Charge


async def new_owner(core: Core, environment: Environment = Environment.TEST) -> Owner:
    merchant = await core.merchants.create(f"m{uuid.uuid4().hex[:10]}@example.com", "password123", "Shop")
    return Owner(merchant.id, environment)


async def new_charge(core: Core, owner: Owner, amount: int = 10_000) -> Charge:
    new = NewCharge(
        amount=amount,
        currency="usd",
        return_url="https://shop.example/ok",
        description=None,
        metadata={},
        cancel_url="https://shop.example/cancel",
        customer_email=None,
    )
    charge = await core.charges.create(owner, new)
    assert isinstance(charge, Charge)
    return charge


async def authorized_charge(core: Core, owner: Owner, amount: int = 10_000) -> Charge:
    charge = await new_charge(core, owner, amount)
    card = CardInput("4242424242424242", 12, 2099, "123")
    await core.checkout.complete(charge.id, "card", card, None)
    return charge


async def captured_charge(core: Core, owner: Owner, amount: int = 10_000) -> Charge:
    charge = await authorized_charge(core, owner, amount)
    await core.charges.capture(owner, charge.id, None)
    return charge
