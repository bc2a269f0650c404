"""The payment-method vault: attach (the sandbox decides, the token is sealed), list, detach.

The first method of a customer becomes its default; detaching the default clears it. Each change
logs `payment_method.attached`/`detached` (and `customer.updated` when the default moved) in the
transaction of the change. An attach that made the method the default is told, after the write, to the
listener registered with `on_default_changed` (as a PATCH of the default is by CustomerService).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from core_server.billing.application.customers import (
    CUSTOMER_UPDATED,
    DefaultListener,
    customer_events,
    customer_not_found,
    tell_default_changed,
)
from core_server.billing.application.payment_method_view import payment_method_view
from core_server.billing.application.ports import PaymentMethodRepository, TokenSealer
from core_server.billing.domain.customer import CUSTOMER_ID_RE, Customer
from core_server.billing.domain.payment_method import (
    PAYMENT_METHOD_ID_RE,
    PaymentMethod,
    Vaulted,
    live_vault_unavailable,
    vault_card,
    vault_paypal,
)
from core_server.kernel.application.clocks import merchant_now
from core_server.kernel.application.idempotency import Claim
from core_server.kernel.application.outbox import OutboxEvent, render_events
from core_server.kernel.application.owner import Owner
from core_server.kernel.application.pagination import Page, page_limit, require_cursor
from core_server.kernel.application.ports import Clocks
from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.errors import NotFound, ParameterInvalid, ParameterMissing
from core_server.kernel.domain.events import DomainEvent
from core_server.kernel.domain.ids import IdCollision, IdSpaceExhausted, id_candidates
from core_server.payments.application.invoice_charges import VaultedSource
from core_server.payments.domain.card import CardInput

PAYMENT_METHOD_ATTACHED = "payment_method.attached"
PAYMENT_METHOD_DETACHED = "payment_method.detached"


def payment_method_not_found(payment_method_id: str) -> NotFound:
    return NotFound(f"No such payment method: '{payment_method_id[:100]}'", param="id")


def method_events(event_type: str, method: PaymentMethod, at: datetime) -> list[OutboxEvent]:
    return render_events(
        [DomainEvent(event_type, method.id, at)], payment_method_view(method), livemode=method.livemode
    )


class PaymentMethodService:
    def __init__(self, methods: PaymentMethodRepository, sealer: TokenSealer, clocks: Clocks) -> None:
        self._methods = methods
        self._sealer = sealer
        self._clocks = clocks
        self._default_listener: DefaultListener | None = None

    def on_default_changed(self, listener: DefaultListener | None) -> None:
        """Registers who hears of a new default payment method (set once, in bootstrap)."""
        self._default_listener = listener

    async def attach(
        self,
        owner: Owner,
        customer_id: str,
        *,
        type_: str,
        card: CardInput | None,
        paypal_email: str | None,
        set_default: bool,
        claim: Claim[PaymentMethod] | None = None,
    ) -> PaymentMethod:
        # An unknown or foreign customer is 404 before anything else: the answer never depends on what
        # the caller sent for an object that is not theirs.
        if not CUSTOMER_ID_RE.match(customer_id) or not await self._methods.customer_exists(
            owner.merchant_id, owner.environment, customer_id
        ):
            raise customer_not_found(customer_id)
        now = await merchant_now(self._clocks, owner, whole_seconds=True)
        vaulted = self._vault(owner.environment, type_, card, paypal_email, now)
        became_default: list[bool] = []
        for method_id in id_candidates("pm_", 24):
            method = PaymentMethod(
                id=method_id,
                merchant_id=owner.merchant_id,
                environment=owner.environment,
                customer_id=customer_id,
                type=vaulted.type,
                card=vaulted.card,
                paypal_email=vaulted.paypal_email,
                created=now,
            )

            def decide(
                customer: Customer, method: PaymentMethod = method
            ) -> tuple[Customer, Sequence[OutboxEvent]]:
                events = method_events(PAYMENT_METHOD_ATTACHED, method, now)
                # The last call is the one written (a retried transaction decides again).
                became_default[:] = [customer.default_payment_method is None or set_default]
                if became_default[0]:
                    # The first method becomes the default; `set_default` makes any one the default.
                    changed = replace(customer, default_payment_method=method.id)
                    return changed, [*events, *customer_events(CUSTOMER_UPDATED, changed, now)]
                return customer, events

            try:
                found = await self._methods.attach(
                    method,
                    self._sealer.seal(vaulted.token, method.id),
                    decide,
                    claim.completion(method) if claim is not None else None,
                )
            except IdCollision:
                continue
            if found is None:
                raise customer_not_found(customer_id)
            if became_default == [True]:
                await tell_default_changed(self._default_listener, owner, customer_id)
            return method
        raise IdSpaceExhausted("ten payment method id collisions in a row")

    def _vault(
        self,
        environment: Environment,
        type_: str,
        card: CardInput | None,
        paypal_email: str | None,
        now: datetime,
    ) -> Vaulted:
        """The type's details must be there (and only those); the sandbox decides (LIVE has no processor)."""
        if type_ == "card":
            if card is None:
                raise ParameterMissing("card")
            if paypal_email is not None:
                raise ParameterInvalid("A card payment method takes no paypal details.", param="paypal")
        elif type_ == "paypal":
            if paypal_email is None:
                raise ParameterMissing("paypal.email")
            if card is not None:
                raise ParameterInvalid("A paypal payment method takes no card details.", param="card")
        else:
            raise ParameterInvalid("type must be card or paypal.", param="type")
        if environment is Environment.LIVE:
            raise live_vault_unavailable()
        if card is not None:
            return vault_card(card, now)
        assert paypal_email is not None
        return vault_paypal(paypal_email)

    async def list(
        self, owner: Owner, customer_id: str, *, limit: int, starting_after: str | None
    ) -> Page[PaymentMethod]:
        limit = page_limit(limit)
        if not CUSTOMER_ID_RE.match(customer_id):
            raise customer_not_found(customer_id)

        async def exists(candidate: str) -> bool:
            return bool(PAYMENT_METHOD_ID_RE.match(candidate)) and await self._methods.exists(
                customer_id, candidate
            )

        if not await self._methods.customer_exists(owner.merchant_id, owner.environment, customer_id):
            raise customer_not_found(customer_id)
        await require_cursor(starting_after, "payment method of this customer", exists)
        return await self._methods.list(
            customer_id, limit=limit, starting_after=starting_after, tenant=owner.merchant_id
        )

    async def detach(self, owner: Owner, customer_id: str, payment_method_id: str) -> PaymentMethod:
        if not (CUSTOMER_ID_RE.match(customer_id) and PAYMENT_METHOD_ID_RE.match(payment_method_id)):
            raise payment_method_not_found(payment_method_id)
        now = await merchant_now(self._clocks, owner, whole_seconds=True)

        def decide(customer: Customer, method: PaymentMethod) -> tuple[Customer, Sequence[OutboxEvent]]:
            events = method_events(PAYMENT_METHOD_DETACHED, method, now)
            if customer.default_payment_method == method.id:
                changed = replace(customer, default_payment_method=None)  # deleting the default clears it
                return changed, [*events, *customer_events(CUSTOMER_UPDATED, changed, now)]
            return customer, events

        detached = await self._methods.detach(
            owner.merchant_id, owner.environment, customer_id, payment_method_id, decide
        )
        if detached is None:
            raise payment_method_not_found(payment_method_id)
        return detached

    async def charging_source(self, owner: Owner, customer_id: str) -> tuple[VaultedSource, str] | None:
        """The customer's default method, its token opened, and the customer's e-mail, for a charge
        billing makes; None without a default. The token leaves this process only towards the processor."""
        found = await self._methods.default_with_token(owner.merchant_id, owner.environment, customer_id)
        if found is None:
            return None
        method, sealed, email = found
        token = self._sealer.open(sealed, method.id)
        card = method.card
        if card is None:
            return VaultedSource(
                method=method.type.value, token=token, paypal_email=method.paypal_email
            ), email
        source = VaultedSource(
            method=method.type.value,
            token=token,
            card_brand=card.brand,
            card_last4=card.last4,
            exp_month=card.exp_month,
            exp_year=card.exp_year,
            funding=card.funding,
            country=card.country,
        )
        return source, email
