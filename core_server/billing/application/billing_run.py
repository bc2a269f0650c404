"""The billing run: as sweepable work (kernel/application/timer_sweep.py), find the subscriptions with a
billing step due at their merchant's time and have each one's steps applied through its actor; and the
retry a new default payment method makes at once of what its customer's subscriptions owe.

DESIGN §9: due hourly, 100 subscriptions claimed at a time (the kernel's job claims, so two cores take
different batches; the sweep hands each batch back once run), batch after batch until none is due; a
sandbox clock advance runs it at once for that merchant. The steps themselves, and when each falls due,
are the domain's (domain/billing_steps.py); a cancel's refund the run finishes goes through the
subscription service's one path (`SubscriptionService.finish_cancel_refund`).
"""

from __future__ import annotations

from collections.abc import Sequence

from core_server.actors import ActorRegistry
from core_server.billing.application.invoice_collection import InvoiceCollector
from core_server.billing.application.references import BillingReferences
from core_server.billing.application.subscription_actor import RunDue
from core_server.billing.application.subscription_ports import SubscriptionQuery, SubscriptionRepository
from core_server.billing.application.subscriptions import SubscriptionService
from core_server.billing.domain.billing_steps import MAX_STEPS, StepKind
from core_server.billing.domain.subscription import Subscription
from core_server.billing.domain.subscription_status import SubscriptionStatus
from core_server.billing.domain.tax import TaxRate
from core_server.kernel.application.job_claims import JobClaim
from core_server.kernel.application.owner import Owner

BILLING_BATCH = 100


class BillingRun:
    def __init__(
        self,
        subscriptions: SubscriptionRepository,
        service: SubscriptionService,
        actors: ActorRegistry,
        refs: BillingReferences,
        *,
        ask_timeout: float,
    ) -> None:
        self._subscriptions = subscriptions
        self._service = service
        self._actors = actors
        self._refs = refs
        self._ask_timeout = ask_timeout
        self._collector = InvoiceCollector(actors, ask_timeout=ask_timeout)

    async def find_due(self, claim: JobClaim, limit: int, owner: Owner | None) -> Sequence[str]:
        return await self._subscriptions.due_for_billing(claim, limit, owner)

    async def run(self, subscription_id: str) -> bool:
        """Every billing step due for the subscription at its merchant's time, one at a time, each at its
        own time and with its charge made before the next (the billing run's work for one entity);
        True when anything happened. Each step is one turn of the actor: the tax rate read when the
        step opens an invoice, the step saved, the invoice collected."""
        changed = False
        for _ in range(MAX_STEPS):
            taken = await self._actors.ask(subscription_id, RunDue(self._rate_for), timeout=self._ask_timeout)
            if taken is None:
                break
            changed = True
            if taken.step.kind is StepKind.CANCEL_REFUND:
                # A cancel cut short by a crash: its refund, once. If it cannot be made now (its key is
                # busy: the request is finishing it), the next pass looks again.
                finished = await self._service.finish_cancel_refund(taken.owner, subscription_id)
                if finished.pending_cancel_refund is not None:
                    break
            elif not taken.more_due:
                break
        return changed

    async def _rate_for(self, subscription: Subscription) -> TaxRate | None:
        owner = Owner(subscription.merchant_id, subscription.environment)
        return await self._refs.rate_for(owner, subscription.tax_rate_id, subscription.customer_id)

    async def retry_open_invoices(self, owner: Owner, customer_id: str) -> None:
        """A new default payment method retries, at once, what each of the customer's PAST_DUE or UNPAID
        subscriptions owes (DESIGN §9): the OPEN invoice, or the UNCOLLECTIBLE one whose retries ran out.
        Paid in full, the subscription is ACTIVE again."""
        for status in (SubscriptionStatus.PAST_DUE, SubscriptionStatus.UNPAID):
            page = await self._subscriptions.list(
                SubscriptionQuery(
                    owner.merchant_id,
                    owner.environment,
                    customer_id=customer_id,
                    status=status.value,
                    limit=100,
                )
            )
            for subscription in page.items:
                if not subscription.owed():
                    continue
                # What is owed is read again in the actor's turn: a scheduled retry may be running.
                settled = await self._collector.collect_owed(owner, subscription)
                if status is SubscriptionStatus.UNPAID and settled.status is SubscriptionStatus.ACTIVE:
                    # Its period in progress is billed now, not at the next hourly run.
                    await self.run(subscription.id)
