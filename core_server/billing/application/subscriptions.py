"""Subscription use cases: create, read, list, change the price, move items, cancel, pause, resume,
preview — and the money step between a move that opens an invoice and the record of its charge.

Everything a move needs from elsewhere (the price, the tax rate, the customer) is read before the
actor's turn; the turn itself only applies the domain rule and saves. A move that opens an invoice is
followed by its collection in the same actor (invoice_collection.py: the credit balance applied, then
payments' charge keyed by invoice and attempt number, then the outcome saved). If a core dies between
the two, the OPEN invoice without an attempt is collected by the next request for that subscription (or
a retry with the same Idempotency-Key, or the billing run), and the unique (invoice, attempt) charge
makes sure it is charged once.

The billing run's work for one subscription, and the retry a new default payment method makes, are in
billing_run.py; the rules live in the domain, the money step in invoice_collection.py and
cancel_refunds.py, and what remains here is the sequencing of reads, turns and collections each request
needs.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any, TypeVar

from core_server.actors import ActorRegistry
from core_server.billing.application.cancel_refunds import CancelRefunds
from core_server.billing.application.customers import CustomerService
from core_server.billing.application.invoice_collection import InvoiceCollector
from core_server.billing.application.invoices import find_invoice
from core_server.billing.application.parsing import parse_choice
from core_server.billing.application.plans import PlanService
from core_server.billing.application.ports import CustomerBalances
from core_server.billing.application.references import BillingReferences
from core_server.billing.application.subscription_actor import Change, subscription_not_found
from core_server.billing.application.subscription_ports import (
    SubscriptionQuery,
    SubscriptionRepository,
)
from core_server.billing.application.subscription_view import ordered_items, subscription_events
from core_server.billing.application.tax_rates import TaxRateService
from core_server.billing.domain.customer import validate_customer_metadata
from core_server.billing.domain.invoice import BillingReason, Invoice
from core_server.billing.domain.subscription import COLLECTION_METHOD, SUBSCRIPTION_ID_RE, Subscription
from core_server.billing.domain.subscription_changes import (
    AddItem,
    Preview,
    PreviewChange,
    PriceChange,
    PriceProration,
    RemoveItem,
    UpdateItem,
)
from core_server.billing.domain.subscription_item import (
    ITEM_ID_RE,
    ItemProration,
    SubscriptionItem,
    item_not_found,
)
from core_server.billing.domain.subscription_status import SubscriptionStatus
from core_server.kernel.application.clocks import merchant_now
from core_server.kernel.application.idempotency import Claim, IdempotentRunner
from core_server.kernel.application.owner import Owner
from core_server.kernel.application.pagination import Page, page_in_order, page_limit, require_cursor
from core_server.kernel.application.ports import Clocks, TurnWrite
from core_server.kernel.domain.errors import ParameterInvalid
from core_server.kernel.domain.ids import IdCollision, IdSpaceExhausted, id_candidates
from core_server.payments.application.charges import ChargeService

R = TypeVar("R")


class SubscriptionService:
    def __init__(
        self,
        subscriptions: SubscriptionRepository,
        actors: ActorRegistry,
        plans: PlanService,
        customers: CustomerService,
        tax_rates: TaxRateService,
        charges: ChargeService,
        balances: CustomerBalances,
        clocks: Clocks,
        runner: IdempotentRunner,
        *,
        ask_timeout: float,
    ) -> None:
        self._subscriptions = subscriptions
        self._actors = actors
        self._clocks = clocks
        self._balances = balances
        self._ask_timeout = ask_timeout
        self._refs = BillingReferences(plans, customers, tax_rates)
        self._collector = InvoiceCollector(actors, ask_timeout=ask_timeout)
        self._cancel_refunds = CancelRefunds(charges, runner)

    # -- create and read ------------------------------------------------------------------------------

    async def create(
        self,
        owner: Owner,
        *,
        customer_id: str,
        price_id: str,
        collection_method: str | None,
        tax_rate_id: str | None,
        metadata: Mapping[str, str],
        claim: Claim[Subscription] | None = None,
    ) -> Subscription:
        if collection_method not in (None, "", COLLECTION_METHOD):
            raise ParameterInvalid(
                f"collection_method must be {COLLECTION_METHOD}.", param="collection_method"
            )
        checked_metadata = validate_customer_metadata(metadata)
        customer = await self._refs.customer(owner, customer_id)
        price = await self._refs.price(owner, price_id)
        if tax_rate_id:
            await self._refs.tax_rate(owner, tax_rate_id)
        key = claim.request.key if claim is not None else None
        if key is not None:
            earlier = await self._subscriptions.find_by_idempotency_key(
                owner.merchant_id, owner.environment, key
            )
            if earlier is not None:
                # A retry after a crash that wrote the subscription but not the key's answer.
                return await self._collector.collect(owner, earlier)
        trial = bool(price.terms.trial_period_days)
        if not trial and customer.default_payment_method is None:
            raise ParameterInvalid(
                "The customer has no default payment method to charge for the first period.",
                param="customer_id",
            )
        rate = await self._refs.rate_for(owner, tax_rate_id or None, customer_id)
        now = await self._now(owner)
        for subscription_id in id_candidates("sub_", 24):
            subscription = Subscription.start(
                subscription_id,
                owner.merchant_id,
                owner.environment,
                customer.id,
                price,
                tax_rate_id=tax_rate_id or None,
                metadata=checked_metadata,
                now=now,
                idempotency_key=key,
            )
            # DESIGN §10.3: an invoice that could never be charged is refused before anything is saved.
            subscription.check_invoice_limit(rate, "price_id")
            if subscription.status is SubscriptionStatus.ACTIVE:
                subscription.open_period_invoice(BillingReason.SUBSCRIPTION_CREATE, rate, now)
            try:
                written = await self._subscriptions.insert_new(
                    subscription, TurnWrite(events=subscription_events(subscription)), None
                )
            except IdCollision:
                continue
            if not written and key is not None:
                # The key's unique index: a create with this key got there first; answer that one.
                earlier = await self._subscriptions.find_by_idempotency_key(
                    owner.merchant_id, owner.environment, key
                )
                if earlier is not None:
                    return await self._collector.collect(owner, earlier)
            subscription.pending_events.clear()
            # The first attempt is dated at the create's moment, like the invoice it pays: a second that
            # ticked over between the save and the charge must not date them apart.
            return await self._collector.collect(owner, subscription, at=now)
        raise IdSpaceExhausted("ten subscription id collisions in a row")

    async def get(self, owner: Owner, subscription_id: str) -> Subscription:
        found = None
        if SUBSCRIPTION_ID_RE.match(subscription_id):
            found = await self._subscriptions.get(owner.merchant_id, owner.environment, subscription_id)
        if found is None:
            raise subscription_not_found(subscription_id)
        return found

    async def list(
        self,
        owner: Owner,
        *,
        customer_id: str | None,
        status: str | None,
        price_id: str | None,
        limit: int,
        starting_after: str | None,
    ) -> Page[Subscription]:
        limit = page_limit(limit)
        status_filter = parse_choice(SubscriptionStatus, status or None, None, "status")

        async def exists(candidate: str) -> bool:
            return bool(SUBSCRIPTION_ID_RE.match(candidate)) and await self._subscriptions.exists(
                owner.merchant_id, owner.environment, candidate
            )

        await require_cursor(starting_after, "subscription", exists)
        return await self._subscriptions.list(
            SubscriptionQuery(
                owner.merchant_id,
                owner.environment,
                customer_id=customer_id or None,
                status=status_filter.value if status_filter else None,
                price_id=price_id or None,
                limit=limit,
                starting_after=starting_after,
            )
        )

    # -- moves ------------------------------------------------------------------------------------------

    async def update(
        self,
        owner: Owner,
        subscription_id: str,
        *,
        price_id: str | None,
        proration_behavior: str | None,
        metadata: Mapping[str, str] | None,
        tax_rate_id: str | None,
        claim: Claim[Subscription] | None = None,
    ) -> Subscription:
        behavior = parse_choice(
            PriceProration, proration_behavior, PriceProration.CREATE_PRORATIONS, "proration_behavior"
        )
        current = await self.get(owner, subscription_id)
        new_price = await self._refs.price(owner, price_id) if price_id else None
        if tax_rate_id:
            await self._refs.tax_rate(owner, tax_rate_id)
        checked_metadata = validate_customer_metadata(metadata) if metadata is not None else None
        rate = (
            await self._refs.rate_for(owner, current.tax_rate_id, current.customer_id) if new_price else None
        )

        def apply(subscription: Subscription, now: datetime) -> None:
            if new_price is not None:
                subscription.change_price(new_price, behavior, rate, now)
            subscription.update_details(checked_metadata, tax_rate_id, now)

        return await self._move(owner, subscription_id, apply, claim, lambda sub, _: sub)

    async def cancel(
        self,
        owner: Owner,
        subscription_id: str,
        *,
        at_period_end: bool,
        prorate: bool,
        claim: Claim[Subscription] | None = None,
    ) -> Subscription:
        """`prorate` with an immediate cancel refunds the unused part of the last paid period invoice on
        its charge, inside the request's idempotency (DESIGN §10.2): the turn that cancels saves the
        refund it owes, the refund is made under a key of its own, and a second turn records it; the
        answer (with `cancel_refund`) is stored after that. A retry of a cancel cut short finishes it."""
        current = await self.get(owner, subscription_id)
        key = claim.request.key if claim is not None else None
        if (
            current.status is SubscriptionStatus.CANCELED
            and key is not None
            and current.cancel_refund_key == key
        ):
            return await self.finish_cancel_refund(owner, subscription_id)
        refunding = prorate and not at_period_end
        paid = await self._subscriptions.last_paid_invoice(subscription_id) if refunding else None

        def apply(subscription: Subscription, now: datetime) -> None:
            subscription.cancel(at_period_end, now, refund_of=paid, key=key if refunding else None)

        # With a refund to make, the answer is stored once it is made (by the runner), not with the cancel.
        answer = None if refunding else (lambda sub, _: sub)
        canceled = await self._move(owner, subscription_id, apply, claim, answer)
        if canceled.pending_cancel_refund is None:
            return canceled
        return await self.finish_cancel_refund(owner, subscription_id)

    async def finish_cancel_refund(self, owner: Owner, subscription_id: str) -> Subscription:
        """Makes the refund a cancel owes (once, by its own key) and records it on the subscription."""
        current = await self.get(owner, subscription_id)
        pending = current.pending_cancel_refund
        if pending is None:
            return current
        refund_id = await self._cancel_refunds.make(owner, subscription_id, pending)

        def apply(subscription: Subscription, now: datetime) -> None:
            subscription.finish_cancel_refund(refund_id, now)

        return await self._move(owner, subscription_id, apply, None, None)

    async def pause(
        self, owner: Owner, subscription_id: str, *, claim: Claim[Subscription] | None = None
    ) -> Subscription:
        return await self._move(
            owner, subscription_id, lambda sub, now: sub.pause(now), claim, lambda sub, _: sub
        )

    async def resume(
        self, owner: Owner, subscription_id: str, *, claim: Claim[Subscription] | None = None
    ) -> Subscription:
        current = await self.get(owner, subscription_id)
        rate = await self._refs.rate_for(owner, current.tax_rate_id, current.customer_id)
        return await self._move(
            owner, subscription_id, lambda sub, now: sub.resume(rate, now), claim, lambda sub, _: sub
        )

    async def add_item(
        self,
        owner: Owner,
        subscription_id: str,
        *,
        price_id: str,
        quantity: int,
        proration_behavior: str | None,
        metadata: Mapping[str, str],
        claim: Claim[SubscriptionItem] | None = None,
    ) -> SubscriptionItem:
        behavior = parse_choice(
            ItemProration, proration_behavior, ItemProration.DEFER_TO_NEXT_CYCLE, "prorationBehavior"
        )
        current = await self.get(owner, subscription_id)
        price = await self._refs.price(owner, price_id, param="priceId")
        checked_metadata = validate_customer_metadata(metadata)
        rate = await self._refs.rate_for(owner, current.tax_rate_id, current.customer_id)

        def apply(subscription: Subscription, now: datetime) -> str:
            return subscription.add_item(price, quantity, behavior, checked_metadata, rate, now).id

        return await self._item_move(owner, subscription_id, apply, claim)

    async def list_items(
        self, owner: Owner, subscription_id: str, *, limit: int = 0, starting_after: str | None = None
    ) -> Page[SubscriptionItem]:
        """One page of the items, base item first, then by time added (removed ones included)."""
        items = ordered_items(await self.get(owner, subscription_id))
        return page_in_order(items, lambda item: item.id, page_limit(limit), starting_after, "item")

    async def update_item(
        self,
        owner: Owner,
        subscription_id: str,
        item_id: str,
        *,
        quantity: int,
        proration_behavior: str | None,
        claim: Claim[SubscriptionItem] | None = None,
    ) -> SubscriptionItem:
        behavior = parse_choice(ItemProration, proration_behavior, None, "prorationBehavior")
        current = await self.get(owner, subscription_id)
        self._known_item(current, item_id)
        rate = await self._refs.rate_for(owner, current.tax_rate_id, current.customer_id)

        def apply(subscription: Subscription, now: datetime) -> str:
            return subscription.update_item(item_id, quantity, behavior, rate, now).id

        return await self._item_move(owner, subscription_id, apply, claim)

    async def remove_item(
        self,
        owner: Owner,
        subscription_id: str,
        item_id: str,
        *,
        immediate: bool,
        claim: Claim[SubscriptionItem] | None = None,
    ) -> SubscriptionItem:
        self._known_item(await self.get(owner, subscription_id), item_id)

        def apply(subscription: Subscription, now: datetime) -> str:
            return subscription.remove_item(item_id, immediate, now).id

        return await self._item_move(owner, subscription_id, apply, claim)

    async def preview(self, owner: Owner, subscription_id: str, change: PreviewChange) -> Preview:
        """The lines `change` would create and what would be charged at once, on a copy: nothing is
        saved, nothing is charged."""
        current = await self.get(owner, subscription_id)
        rate = await self._refs.rate_for(owner, current.tax_rate_id, current.customer_id)
        trial = copy.deepcopy(current)
        trial.prorations, trial.invoices, trial.pending_events = [], [], []
        now = await self._now(owner)
        match change:
            case PriceChange():
                behavior = parse_choice(
                    PriceProration,
                    change.proration_behavior,
                    PriceProration.CREATE_PRORATIONS,
                    "proration_behavior",
                )
                trial.change_price(await self._refs.price(owner, change.price_id), behavior, rate, now)
            case AddItem():
                behavior_ = parse_choice(
                    ItemProration,
                    change.proration_behavior,
                    ItemProration.DEFER_TO_NEXT_CYCLE,
                    "prorationBehavior",
                )
                price = await self._refs.price(owner, change.price_id, param="priceId")
                trial.add_item(price, change.quantity, behavior_, {}, rate, now)
            case UpdateItem():
                self._known_item(current, change.item_id)
                trial.update_item(change.item_id, change.quantity, None, rate, now)
            case RemoveItem():
                self._known_item(current, change.item_id)
                trial.remove_item(change.item_id, change.immediate, now)
        lines = [pending.line for pending in trial.prorations]
        return Preview.of(lines, rate, due_now=trial.open_invoice() is not None)

    # -- the money step -----------------------------------------------------------------------------------

    async def _move(
        self,
        owner: Owner,
        subscription_id: str,
        apply: Callable[[Subscription, datetime], Any],
        claim: Claim[Any] | None,
        answer: Callable[[Subscription, Any], Any] | None,
    ) -> Subscription:
        if not SUBSCRIPTION_ID_RE.match(subscription_id):
            raise subscription_not_found(subscription_id)
        _, after = await self._actors.ask(
            subscription_id, Change(owner, apply, claim, answer), timeout=self._ask_timeout
        )
        return await self._collector.collect(owner, after)

    async def _item_move(
        self,
        owner: Owner,
        subscription_id: str,
        apply: Callable[[Subscription, datetime], str],
        claim: Claim[SubscriptionItem] | None,
    ) -> SubscriptionItem:
        def answer(subscription: Subscription, item_id: str) -> SubscriptionItem:
            return self._known_item(subscription, item_id)

        if not SUBSCRIPTION_ID_RE.match(subscription_id):
            raise subscription_not_found(subscription_id)
        item_id, after = await self._actors.ask(
            subscription_id, Change(owner, apply, claim, answer), timeout=self._ask_timeout
        )
        final = await self._collector.collect(owner, after)
        return self._known_item(final, item_id)

    # -- invoices -------------------------------------------------------------------------------------------

    async def void_invoice(
        self, owner: Owner, invoice_id: str, claim: Claim[Invoice] | None = None
    ) -> Invoice:
        invoice = await find_invoice(self._subscriptions, owner, invoice_id)

        def apply(subscription: Subscription, now: datetime) -> Invoice:
            return subscription.void_invoice(invoice.id, now)

        def answer(_: Subscription, voided: Invoice) -> Invoice:
            return voided

        voided, _ = await self._actors.ask(
            invoice.subscription_id, Change(owner, apply, claim, answer), timeout=self._ask_timeout
        )
        result: Invoice = voided
        # DESIGN §10.1: no credit is lost — what the balance gave this invoice goes back (once).
        await self._balances.restore(result, await self._now(owner))
        return result

    # -- lookups ------------------------------------------------------------------------------------------

    async def _now(self, owner: Owner) -> datetime:
        return await merchant_now(self._clocks, owner, whole_seconds=True)

    @staticmethod
    def _known_item(subscription: Subscription, item_id: str) -> SubscriptionItem:
        item = subscription.item(item_id) if ITEM_ID_RE.match(item_id) else None
        if item is None:
            raise item_not_found(item_id)
        return item
