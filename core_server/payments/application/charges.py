"""Charge use cases: create without an actor (nothing else can own a new charge), the rest through it."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, TypeVar

from core_server.actors import ActorRegistry
from core_server.kernel.application.clocks import merchant_now
from core_server.kernel.application.idempotency import Claim, IdempotentRunner
from core_server.kernel.application.owner import Owner
from core_server.kernel.application.pagination import Page, page_limit, require_cursor, unix_bound
from core_server.kernel.application.ports import (
    Clocks,
    FirstClaim,
    IdempotencyRequest,
    TurnWrite,
)
from core_server.kernel.domain.errors import DomainError, ParameterInvalid
from core_server.kernel.domain.ids import IdCollision, IdSpaceExhausted, id_candidates
from core_server.kernel.domain.replays import Replay
from core_server.payments.application.charge_commands import (
    CaptureCharge,
    CloseDispute,
    OpenDispute,
    RefundCharge,
    VoidCharge,
)
from core_server.payments.application.charge_view import ChargeViews
from core_server.payments.application.ports import ChargeQuery, ChargeRepository, DayVolume
from core_server.payments.domain.charge import Charge, ChargeStatus
from core_server.payments.domain.charge_input import validate_charge_draft
from core_server.payments.domain.dispute import Dispute
from core_server.payments.domain.errors import charge_not_found, dispute_not_found
from core_server.payments.domain.ids import is_charge_id
from core_server.payments.domain.refund import Refund

T = TypeVar("T")

DEFAULT_VOLUME_DAYS = 30
MAX_VOLUME_DAYS = 90


@dataclass(frozen=True, slots=True)
class NewCharge:
    """The create request as received, before validation."""

    amount: int
    currency: str
    return_url: str
    description: str | None
    metadata: Mapping[str, str]
    cancel_url: str | None
    customer_email: str | None


class ChargeService:
    def __init__(
        self,
        charges: ChargeRepository,
        actors: ActorRegistry,
        clocks: Clocks,
        runner: IdempotentRunner,
        views: ChargeViews,
        *,
        ask_timeout: float,
    ) -> None:
        self._views = views
        self._charges = charges
        self._actors = actors
        self._clocks = clocks
        self._runner = runner
        self._ask_timeout = ask_timeout

    async def create(
        self,
        owner: Owner,
        new: NewCharge,
        idempotency: IdempotencyRequest | None,
        render: Callable[[Charge], bytes],
    ) -> Charge | Replay:
        """One statement, one round trip: a new charge needs no actor and no lease (nothing else can own
        it yet), and its key is claimed and completed in the statement that writes it (FirstClaim)."""
        try:
            draft = validate_charge_draft(
                amount=new.amount,
                currency=new.currency,
                return_url=new.return_url,
                description=new.description,
                metadata=new.metadata,
                cancel_url=new.cancel_url,
                customer_email=new.customer_email,
            )
        except DomainError:
            if idempotency is not None:
                await self._runner.check(idempotency)  # a reused key with another request: the 409 first
            raise
        now = await merchant_now(self._clocks, owner)
        key = idempotency.key if idempotency else None
        for charge_id in id_candidates("ch_", 32):
            charge = Charge.create(charge_id, owner.merchant_id, owner.environment, draft, now, key)
            claim = FirstClaim(idempotency, render(charge), now) if idempotency is not None else None
            try:
                written = await self._charges.insert_new(charge, TurnWrite(self._views.events(charge)), claim)
            except IdCollision:
                continue
            if written:
                charge.pending_events.clear()
                return charge
            assert idempotency is not None  # only a taken key stops a write
            return await self._runner.answer_taken(idempotency)
        raise IdSpaceExhausted("ten charge id collisions in a row")

    async def get(self, owner: Owner, charge_id: str) -> Charge:
        charge = await self._charges.get(charge_id) if is_charge_id(charge_id) else None
        if (
            charge is None
            or charge.merchant_id != owner.merchant_id
            or charge.environment is not owner.environment
        ):
            raise charge_not_found(charge_id)
        # A due timer shows at once (DESIGN §8); the sweep or the next write persists it.
        return charge.seen_at(await self._merchant_now(owner))

    async def list(
        self,
        owner: Owner,
        *,
        limit: int,
        status: ChargeStatus | None,
        created_after: int | None,
        created_before: int | None,
        starting_after: str | None,
        customer_email: str | None = None,
        invoice_id: str | None = None,
    ) -> Page[Charge]:
        now = await self._merchant_now(owner)
        query = ChargeQuery(
            merchant_id=owner.merchant_id,
            environment=owner.environment,
            limit=page_limit(limit),
            status=status,
            created_after=unix_bound(created_after, "created_after"),
            created_before=unix_bound(created_before, "created_before"),
            starting_after=starting_after or None,
            seen_at=now,
            customer_email=customer_email.strip()[:254] if customer_email else None,
            invoice_id=invoice_id.strip()[:100] if invoice_id else None,
        )
        await require_cursor(query.starting_after, "charge", lambda _: self._charges.cursor_exists(query))
        page = await self._charges.list(query)
        return Page([charge.seen_at(now) for charge in page.items], page.has_more, page.total_count)

    async def daily_volume(self, owner: Owner, days: int) -> tuple[datetime, int, Sequence[DayVolume]]:
        """(first day, day count, volumes): the last `days` UTC days at the merchant's time, today
        included; 0 means 30, and more than 90 is refused."""
        count = days or DEFAULT_VOLUME_DAYS
        if not 1 <= count <= MAX_VOLUME_DAYS:
            raise ParameterInvalid(f"days must be between 1 and {MAX_VOLUME_DAYS}.", param="days")
        now = await self._merchant_now(owner)
        today = now.replace(hour=0, minute=0, second=0, microsecond=0)
        first = today - timedelta(days=count - 1)
        volumes = await self._charges.daily_volume(
            owner.merchant_id, owner.environment, first, today + timedelta(days=1)
        )
        return first, count, volumes

    async def _merchant_now(self, owner: Owner) -> datetime:
        return await merchant_now(self._clocks, owner)

    async def capture(
        self,
        owner: Owner,
        charge_id: str,
        amount: int | None,
        idempotency: IdempotencyRequest | None,
        render: Callable[[Charge], bytes],
    ) -> Charge | Replay:
        return await self._ask(
            charge_id, owner, idempotency, render, lambda claim: CaptureCharge(owner, amount, claim)
        )

    async def refund(
        self,
        owner: Owner,
        charge_id: str,
        amount: int | None,
        reason: str | None,
        idempotency: IdempotencyRequest | None,
        render: Callable[[tuple[Refund, Charge]], bytes],
    ) -> tuple[Refund, Charge] | Replay:
        return await self._ask(
            charge_id, owner, idempotency, render, lambda claim: RefundCharge(owner, amount, reason, claim)
        )

    async def void(
        self,
        owner: Owner,
        charge_id: str,
        idempotency: IdempotencyRequest | None,
        render: Callable[[Charge], bytes],
    ) -> Charge | Replay:
        return await self._ask(charge_id, owner, idempotency, render, lambda claim: VoidCharge(owner, claim))

    async def open_dispute(
        self,
        owner: Owner,
        charge_id: str,
        idempotency: IdempotencyRequest | None,
        render: Callable[[Dispute], bytes],
    ) -> Dispute | Replay:
        return await self._ask(charge_id, owner, idempotency, render, lambda claim: OpenDispute(owner, claim))

    async def close_dispute_by_id(
        self,
        owner: Owner,
        dispute_id: str,
        outcome: str,
        idempotency: IdempotencyRequest | None,
        render: Callable[[Dispute], bytes],
    ) -> Dispute | Replay:
        charge_id = await self._charges.charge_id_for_dispute(dispute_id)
        if charge_id is None:
            raise dispute_not_found(dispute_id)
        return await self._ask(
            charge_id,
            owner,
            idempotency,
            render,
            lambda claim: CloseDispute(owner, dispute_id, outcome, claim),
        )

    async def _ask(
        self,
        charge_id: str,
        owner: Owner,
        idempotency: IdempotencyRequest | None,
        render: Callable[[T], bytes],
        message: Callable[[Claim[T] | None], object],
    ) -> T | Replay:
        if not is_charge_id(charge_id):
            if idempotency is not None:
                await self._runner.check(idempotency)  # a reused key with another request: the 409 first
            raise charge_not_found(charge_id)

        async def operation(claim: Claim[T] | None) -> T:
            result: Any = await self._actors.ask(charge_id, message(claim), timeout=self._ask_timeout)
            return result  # type: ignore[no-any-return]

        return await self._runner.run(idempotency, render, operation)
