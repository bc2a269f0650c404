"""Customer portal use cases (DESIGN §9 "Portal"): a merchant creates a session; the customer, holding
only the session's token, reads the portal and makes its two changes.

Every rule is here, not in the gateway: the token must name a session that has not expired on its
merchant's clock (else one "expired" answer and nothing changes), a form's anti-forgery token must be
this session's, and every object a page names must be the session customer's. The changes go through
the same use cases as the API — a new card through PaymentMethodService.attach with set_default (which
retries a PAST_DUE subscription's open invoice at once), a cancel through SubscriptionService.cancel.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from core_server.billing.application.customers import CustomerService
from core_server.billing.application.invoices import InvoiceService
from core_server.billing.application.payment_methods import PaymentMethodService
from core_server.billing.application.plans import PlanService
from core_server.billing.application.portal_ports import PortalSessionRepository
from core_server.billing.application.portal_view import PortalInvoice, PortalPage, SubscriptionPanel
from core_server.billing.application.subscriptions import SubscriptionService
from core_server.billing.application.tax_rates import TaxRateService
from core_server.billing.domain.customer import CUSTOMER_ID_RE, Address
from core_server.billing.domain.invoice import Invoice, InvoiceStatus
from core_server.billing.domain.payment_method import PaymentMethod
from core_server.billing.domain.portal_session import (
    PORTAL_SESSION_PREFIX,
    PortalSession,
    anti_forgery_token,
    check_anti_forgery,
    expires_at,
    is_token,
    new_token,
    session_expired,
    token_digest,
    upcoming_invoice,
    validate_return_url,
)
from core_server.billing.domain.subscription import Subscription
from core_server.billing.domain.subscription_status import SubscriptionStatus
from core_server.kernel.application.clocks import merchant_now
from core_server.kernel.application.owner import Owner
from core_server.kernel.application.ports import Clocks
from core_server.kernel.domain.errors import NotFound, ParameterMissing
from core_server.kernel.domain.ids import IdCollision, IdSpaceExhausted, id_candidates
from core_server.merchants.application.merchants import MerchantRepository
from core_server.payments.domain.card import CardInput

HISTORY_LIMIT = 100
"""Invoices the billing history lists, newest first (a portal is not an accounting export)."""
SUBSCRIPTION_LIMIT = 10
"""Subscriptions one portal page shows (DESIGN §10.3, issue 23): each panel simulates the next invoice
on the core's event loop, so a page does a bounded amount of work; a link pages on to the next ones."""


@dataclass(frozen=True, slots=True)
class CreatedPortalSession:
    session: PortalSession
    url: str
    """`{portal_url}/portal/{token}`: the only place the token ever appears."""


@dataclass(frozen=True, slots=True)
class PortalVisit:
    """A session that is valid now, and the tenant its customer belongs to."""

    session: PortalSession
    owner: Owner


def customer_not_found_for_session(customer_id: str) -> NotFound:
    return NotFound(f"No such customer: '{customer_id[:100]}'", param="customer_id")


def portal_object_not_found(kind: str, object_id: str) -> NotFound:
    """Another customer's object (or none) answers as if it did not exist."""
    return NotFound(f"No such {kind}: '{object_id[:100]}'", param="id")


class PortalSessionService:
    def __init__(
        self,
        sessions: PortalSessionRepository,
        customers: CustomerService,
        payment_methods: PaymentMethodService,
        subscriptions: SubscriptionService,
        invoices: InvoiceService,
        plans: PlanService,
        tax_rates: TaxRateService,
        merchants: MerchantRepository,
        clocks: Clocks,
        *,
        portal_base_url: str,
        form_key: bytes,
    ) -> None:
        self._sessions = sessions
        self._customers = customers
        self._methods = payment_methods
        self._subscriptions = subscriptions
        self._invoices = invoices
        self._plans = plans
        self._tax_rates = tax_rates
        self._merchants = merchants
        self._clocks = clocks
        self._base_url = portal_base_url.rstrip("/")
        self._form_key = form_key

    # -- the merchant's API -------------------------------------------------------------------------

    async def create(self, owner: Owner, *, customer_id: str, return_url: str) -> CreatedPortalSession:
        if not customer_id:
            raise ParameterMissing("customer_id")
        if not return_url:
            raise ParameterMissing("return_url")
        # Another tenant's customer is 404 before the URL is looked at (as an attach does).
        if not CUSTOMER_ID_RE.match(customer_id):
            raise customer_not_found_for_session(customer_id)
        try:
            await self._customers.get(owner, customer_id)
        except NotFound:
            raise customer_not_found_for_session(customer_id) from None
        checked_url = validate_return_url(return_url)
        created = await merchant_now(self._clocks, owner)
        created = created.replace(microsecond=0)
        for session_id in id_candidates(PORTAL_SESSION_PREFIX, 24):
            token = new_token()
            session = PortalSession(
                id=session_id,
                merchant_id=owner.merchant_id,
                environment=owner.environment,
                customer_id=customer_id,
                return_url=checked_url,
                token_digest=token_digest(token),
                created=created,
                expires_at=expires_at(created),
            )
            try:
                await self._sessions.insert(session)
            except IdCollision:
                continue
            return CreatedPortalSession(session, f"{self._base_url}/portal/{token}")
        raise IdSpaceExhausted("ten portal session id collisions in a row")

    # -- the customer's pages -----------------------------------------------------------------------

    async def visit(self, token: str) -> PortalVisit:
        """The session of `token` if it is valid now; unknown, malformed and expired are one answer."""
        session = await self._sessions.find_by_digest(token_digest(token)) if is_token(token) else None
        if session is None:
            raise session_expired()
        if session.expired(await merchant_now(self._clocks, session)):
            raise session_expired()
        return PortalVisit(session, Owner(session.merchant_id, session.environment))

    async def page(self, token: str, *, after: str | None = None, only: str | None = None) -> PortalPage:
        """The main page: at most SUBSCRIPTION_LIMIT subscription panels, those after `after` (a link
        pages on), or just the subscription `only` (the cancel pages), if it is the customer's."""
        visit = await self.visit(token)
        owner, session = visit.owner, visit.session
        customer = await self._customers.get(owner, session.customer_id)
        merchant = await self._merchants.get(session.merchant_id)
        subscriptions: Sequence[Subscription]
        more = False
        if only is not None:
            subscriptions = await self._one_subscription(owner, customer.id, only)
        else:
            listed = await self._subscriptions.list(
                owner,
                customer_id=customer.id,
                status=None,
                price_id=None,
                limit=SUBSCRIPTION_LIMIT,
                starting_after=after,
            )
            subscriptions, more = listed.items, listed.has_more
        invoices = await self._history(owner, customer.id)
        labels = await self._labels(
            owner,
            [s.price_id for s in subscriptions]
            + [i.price_id for s in subscriptions for i in s.items]
            + [line.price_id for inv in invoices for line in inv.lines],
        )
        panels = [await self._panel(owner, sub, labels, customer.address) for sub in subscriptions]
        return PortalPage(
            session=session,
            anti_forgery_token=anti_forgery_token(self._form_key, session.id),
            profile=merchant.profile if merchant is not None else None,
            customer=customer,
            default_method=await self._default_method(owner, customer.id, customer.default_payment_method),
            panels=panels,
            invoices=invoices,
            labels=labels,
            more_subscriptions=more,
        )

    async def _one_subscription(
        self, owner: Owner, customer_id: str, subscription_id: str
    ) -> list[Subscription]:
        try:
            subscription = await self._subscriptions.get(owner, subscription_id)
        except NotFound:
            return []
        return [subscription] if subscription.customer_id == customer_id else []

    async def invoice(self, token: str, invoice_id: str) -> PortalInvoice:
        """One invoice of the session's customer, with the names of the prices on its lines."""
        visit = await self.visit(token)
        merchant = await self._merchants.get(visit.session.merchant_id)
        try:
            invoice = await self._invoices.get(visit.owner, invoice_id)
        except NotFound:
            raise portal_object_not_found("invoice", invoice_id) from None
        if invoice.customer_id != visit.session.customer_id:
            raise portal_object_not_found("invoice", invoice_id)
        return PortalInvoice(
            session=visit.session,
            profile=merchant.profile if merchant is not None else None,
            invoice=invoice,
            labels=await self._labels(visit.owner, [line.price_id for line in invoice.lines]),
        )

    async def update_payment_method(self, token: str, form_token: str, card: CardInput) -> PaymentMethod:
        """Vaults the card as the new default; a decline is refused with its code and nothing changes."""
        visit = await self.visit(token)
        check_anti_forgery(self._form_key, visit.session.id, form_token)
        return await self._methods.attach(
            visit.owner,
            visit.session.customer_id,
            type_="card",
            card=card,
            paypal_email=None,
            set_default=True,
        )

    async def cancel_at_period_end(self, token: str, form_token: str, subscription_id: str) -> Subscription:
        visit = await self.visit(token)
        check_anti_forgery(self._form_key, visit.session.id, form_token)
        try:
            subscription = await self._subscriptions.get(visit.owner, subscription_id)
        except NotFound:
            raise portal_object_not_found("subscription", subscription_id) from None
        if subscription.customer_id != visit.session.customer_id:
            raise portal_object_not_found("subscription", subscription_id)
        return await self._subscriptions.cancel(
            visit.owner, subscription_id, at_period_end=True, prorate=False
        )

    # -- reads for the page -------------------------------------------------------------------------

    async def _history(self, owner: Owner, customer_id: str) -> list[Invoice]:
        page = await self._invoices.list(
            owner,
            subscription_id=None,
            customer_id=customer_id,
            status=None,
            limit=HISTORY_LIMIT,
            starting_after=None,
        )
        # A DRAFT is not yet the customer's to see.
        return [inv for inv in page.items if inv.status is not InvoiceStatus.DRAFT]

    async def _labels(self, owner: Owner, price_ids: Iterable[str]) -> dict[str, str]:
        """price id → its plan's name (a deleted or unreadable one keeps its id)."""
        labels: dict[str, str] = {}
        for price_id in dict.fromkeys(price_ids):
            try:
                price = await self._plans.get_price(owner, price_id)
                labels[price_id] = (await self._plans.get_plan(owner, price.plan_id)).name
            except NotFound:
                labels[price_id] = price_id
        return labels

    async def _panel(
        self, owner: Owner, subscription: Subscription, labels: dict[str, str], address: Address | None
    ) -> SubscriptionPanel:
        upcoming = None
        owed = None
        if subscription.status in (SubscriptionStatus.ACTIVE, SubscriptionStatus.TRIALING):
            rate = await self._tax_rates.resolve(
                owner,
                subscription.tax_rate_id,
                address.country if address is not None else None,
                address.state if address is not None else None,
            )
            upcoming = upcoming_invoice(subscription, rate)
        elif subscription.status in (SubscriptionStatus.PAST_DUE, SubscriptionStatus.UNPAID):
            owed = next(iter(subscription.owed()), None)
        return SubscriptionPanel(subscription, labels, upcoming, owed)

    async def _default_method(
        self, owner: Owner, customer_id: str, default_id: str | None
    ) -> PaymentMethod | None:
        if default_id is None:
            return None
        page = await self._methods.list(owner, customer_id, limit=100, starting_after=None)
        return next((m for m in page.items if m.id == default_id), None)
