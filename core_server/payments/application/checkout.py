"""Hosted checkout use cases: page data, completion through the charge's actor, and cancel."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from core_server.actors import ActorRegistry
from core_server.kernel.application.clocks import merchant_now
from core_server.kernel.application.idempotency import Claim, IdempotentRunner
from core_server.kernel.application.ports import Clocks, IdempotencyRequest
from core_server.kernel.domain.errors import NotFound, ParameterInvalid
from core_server.kernel.domain.money import format_amount
from core_server.kernel.domain.replays import Replay
from core_server.merchants.application.merchants import MerchantRepository
from core_server.payments.application.charge_commands import CheckoutResult, CompleteCheckout
from core_server.payments.application.ports import ChargeRepository
from core_server.payments.domain.card import CardInput
from core_server.payments.domain.charge import (
    MALFORMED_ID_MESSAGE,
    NOT_FOUND_MESSAGE,
    Charge,
    checkout_message,
)
from core_server.payments.domain.ids import is_charge_id

DEFAULT_MERCHANT_NAME = "Merchant"
PAYMENT_METHODS = ("card", "paypal")


@dataclass(frozen=True, slots=True)
class CheckoutPage:
    charge_id: str
    valid: bool
    error_message: str | None = None
    charge: Charge | None = None
    formatted_amount: str = ""
    merchant_name: str = DEFAULT_MERCHANT_NAME
    merchant_logo_url: str | None = None
    merchant_brand_color: str | None = None
    merchant_support_email: str | None = None
    payment_methods: tuple[str, ...] = field(default=PAYMENT_METHODS)


def _require_charge_id(charge_id: str) -> None:
    if not is_charge_id(charge_id):
        raise ParameterInvalid(MALFORMED_ID_MESSAGE, param="chargeId")


class CheckoutService:
    def __init__(
        self,
        charges: ChargeRepository,
        merchants: MerchantRepository,
        actors: ActorRegistry,
        clocks: Clocks,
        runner: IdempotentRunner,
        *,
        ask_timeout: float,
    ) -> None:
        self._charges = charges
        self._merchants = merchants
        self._actors = actors
        self._clocks = clocks
        self._runner = runner
        self._ask_timeout = ask_timeout

    async def page(self, charge_id: str) -> CheckoutPage:
        """Every invalid state is a page with valid=false (DESIGN §5a), never an error."""
        if not is_charge_id(charge_id):
            return CheckoutPage(charge_id=charge_id, valid=False, error_message=MALFORMED_ID_MESSAGE)
        charge = await self._charges.get(charge_id)
        if charge is None:
            return CheckoutPage(charge_id=charge_id, valid=False, error_message=NOT_FOUND_MESSAGE)
        now = await merchant_now(self._clocks, charge)
        problem = checkout_message(charge, now)
        merchant = await self._merchants.get(charge.merchant_id)
        profile = merchant.profile if merchant is not None else None
        return CheckoutPage(
            charge_id=charge_id,
            valid=problem is None,
            error_message=problem,
            charge=charge,
            formatted_amount=format_amount(charge.amount, charge.currency),
            merchant_name=(
                profile.business_name if profile and profile.business_name else DEFAULT_MERCHANT_NAME
            ),
            merchant_logo_url=(profile.logo_url or None) if profile else None,
            merchant_brand_color=(profile.brand_color or None) if profile else None,
            merchant_support_email=(profile.support_email or None) if profile else None,
        )

    async def complete(
        self,
        charge_id: str,
        method: str,
        card: CardInput | None,
        paypal_email: str | None,
        idempotency: IdempotencyRequest | None,
        render: Callable[[CheckoutResult], bytes],
    ) -> CheckoutResult | Replay:
        _require_charge_id(charge_id)

        async def operation(claim: Claim[CheckoutResult] | None) -> CheckoutResult:
            message = CompleteCheckout(method, card, paypal_email, claim)
            result: Any = await self._actors.ask(charge_id, message, timeout=self._ask_timeout)
            return result  # type: ignore[no-any-return]

        return await self._runner.run(idempotency, render, operation)

    async def cancel(self, charge_id: str) -> str:
        """The charge stays as it is (spec: pending, later expires); the customer goes to cancel_url."""
        _require_charge_id(charge_id)
        charge = await self._charges.get(charge_id)
        if charge is None:
            raise NotFound(NOT_FOUND_MESSAGE, param="chargeId")
        return charge.failure_redirect_url
