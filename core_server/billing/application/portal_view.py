"""What the portal shows, rendered once here: the portal_session object a merchant gets, and the page
data (subscriptions, default payment method, billing history) the gateway's templates display.

Amounts are formatted here, where currencies are known (`$21.65`, `¥1,000`), and kept in cents beside;
times are Unix seconds. The page data never carries a token, a card number or a price the customer
did not see on an invoice.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from core_server.billing.application.subscription_view import ordered_items
from core_server.billing.domain.customer import Customer
from core_server.billing.domain.invoice import Invoice
from core_server.billing.domain.payment_method import PaymentMethod
from core_server.billing.domain.portal_session import PortalSession, UpcomingInvoice
from core_server.billing.domain.subscription import Subscription
from core_server.billing.domain.subscription_item import ItemStatus
from core_server.billing.domain.subscription_status import CHANGEABLE
from core_server.kernel.domain.money import format_amount
from core_server.kernel.domain.public_json import JSON, compact_json, unix_seconds
from core_server.merchants.domain.merchant import Profile

DEFAULT_MERCHANT_NAME = "Merchant"


@dataclass(frozen=True, slots=True)
class SubscriptionPanel:
    """One subscription as the portal lists it: the subscription, its item labels and what comes next."""

    subscription: Subscription
    labels: Mapping[str, str]
    """price id → the name the customer knows it by (its plan's name)."""
    upcoming: UpcomingInvoice | None
    owed: Invoice | None
    """The OPEN invoice of a PAST_DUE or UNPAID subscription."""


@dataclass(frozen=True, slots=True)
class PortalPage:
    session: PortalSession
    anti_forgery_token: str
    profile: Profile | None
    customer: Customer
    default_method: PaymentMethod | None
    panels: Sequence[SubscriptionPanel]
    invoices: Sequence[Invoice]
    labels: Mapping[str, str]
    more_subscriptions: bool = False
    """More subscriptions follow the panels shown (the page shows a bounded number)."""


@dataclass(frozen=True, slots=True)
class PortalInvoice:
    session: PortalSession
    profile: Profile | None
    invoice: Invoice
    labels: Mapping[str, str]


def portal_session_view(session: PortalSession, url: str) -> JSON:
    return {
        "id": session.id,
        "object": "portal_session",
        "customer_id": session.customer_id,
        "return_url": session.return_url,
        "url": url,
        "created": unix_seconds(session.created),
        "expires_at": unix_seconds(session.expires_at),
        "livemode": session.livemode,
    }


def _money(cents: int, currency: str) -> JSON:
    return {"cents": cents, "currency": currency, "formatted": format_amount(cents, currency)}


def _interval(subscription: Subscription) -> str:
    count, unit = subscription.interval_count, subscription.interval
    return f"every {count} {unit}s" if count > 1 else f"per {unit}"


def merchant_view(profile: Profile | None) -> JSON:
    return {
        "name": (profile.business_name if profile and profile.business_name else DEFAULT_MERCHANT_NAME),
        "logo_url": (profile.logo_url or None) if profile else None,
        "brand_color": (profile.brand_color or None) if profile else None,
        "support_email": (profile.support_email or None) if profile else None,
    }


def payment_method_view(method: PaymentMethod | None) -> JSON | None:
    if method is None:
        return None
    if method.card is not None:
        card = method.card
        return {
            "type": "card",
            "brand": card.brand,
            "last4": card.last4,
            "exp_month": card.exp_month,
            "exp_year": card.exp_year,
        }
    return {"type": method.type.value, "email": method.paypal_email}


def subscription_panel_view(panel: SubscriptionPanel) -> JSON:
    sub = panel.subscription
    live = [item for item in ordered_items(sub) if item.status is ItemStatus.ACTIVE]
    recurring = sum(item.unit_amount_cents * item.quantity for item in live)
    upcoming = panel.upcoming
    return {
        "id": sub.id,
        "status": sub.status.value,
        "name": panel.labels.get(sub.price_id, sub.price_id),
        "price": _money(recurring, sub.currency),
        "interval": _interval(sub),
        "items": [
            {
                "name": panel.labels.get(item.price_id, item.price_id),
                "quantity": item.quantity,
                "unit_amount": _money(item.unit_amount_cents, sub.currency),
                "amount": _money(item.unit_amount_cents * item.quantity, sub.currency),
                "ends_at": unix_seconds(item.removed_at) if item.removed_at is not None else None,
            }
            for item in live
        ],
        "current_period_start": unix_seconds(sub.current_period_start),
        "current_period_end": unix_seconds(sub.current_period_end),
        "trial_end": unix_seconds(sub.trial_end) if sub.trial_end is not None else None,
        "cancel_at_period_end": sub.cancel_at_period_end,
        "canceled_at": unix_seconds(sub.canceled_at) if sub.canceled_at is not None else None,
        "can_cancel": sub.status in CHANGEABLE and not sub.cancel_at_period_end,
        "next_invoice": (
            {
                "date": unix_seconds(upcoming.at),
                "subtotal": _money(upcoming.subtotal_cents, sub.currency),
                "tax": _money(upcoming.tax_cents, sub.currency),
                "total": _money(upcoming.total_cents, sub.currency),
            }
            if upcoming is not None
            else None
        ),
        "amount_due": _money(_due(panel.owed), sub.currency) if panel.owed is not None else None,
    }


def _due(invoice: Invoice) -> int:
    return max(0, invoice.total_cents) if invoice.amount_due_cents is None else invoice.amount_due_cents


def invoice_view(invoice: Invoice, labels: Mapping[str, str]) -> JSON:
    currency = invoice.currency
    return {
        "id": invoice.id,
        "status": invoice.status.value,
        "subscription_id": invoice.subscription_id,
        "created": unix_seconds(invoice.created),
        "period_start": unix_seconds(invoice.period_start),
        "period_end": unix_seconds(invoice.period_end),
        "paid_at": unix_seconds(invoice.paid_at) if invoice.paid_at is not None else None,
        "lines": [
            {
                "kind": line.kind.value,
                "description": line.description.replace(
                    line.price_id, labels.get(line.price_id, line.price_id)
                ),
                "quantity": line.quantity,
                "amount": _money(line.amount_cents, currency),
                "period_start": unix_seconds(line.period_start),
                "period_end": unix_seconds(line.period_end),
            }
            for line in invoice.lines
        ],
        "subtotal": _money(invoice.subtotal_cents, currency),
        "tax": _money(invoice.tax_cents, currency),
        "total": _money(invoice.total_cents, currency),
        "credit_applied": _money(invoice.credit_applied_cents or 0, currency),
        "amount_due": _money(_due(invoice), currency),
    }


def _session_part(session: PortalSession) -> JSON:
    return {
        "id": session.id,
        "return_url": session.return_url,
        "expires_at": unix_seconds(session.expires_at),
    }


def portal_page_view(page: PortalPage) -> JSON:
    session, customer = page.session, page.customer
    return {
        "session": _session_part(session),
        "anti_forgery_token": page.anti_forgery_token,
        "test_mode": not session.livemode,
        "merchant": merchant_view(page.profile),
        "customer": {"id": customer.id, "email": customer.email, "name": customer.name},
        # DESIGN §10.1: the credit the customer holds (or a small amount carried), per currency.
        "credit_balance": [
            _money(cents, currency) for currency, cents in sorted(customer.credit_balance.items())
        ],
        "default_payment_method": payment_method_view(page.default_method),
        "subscriptions": [subscription_panel_view(panel) for panel in page.panels],
        # The last panel's id when more follow: the page's "more subscriptions" link starts after it.
        "subscriptions_next": page.panels[-1].subscription.id
        if page.more_subscriptions and page.panels
        else None,
        "invoices": [invoice_view(invoice, page.labels) for invoice in page.invoices],
    }


def portal_invoice_view(page: PortalInvoice) -> JSON:
    return {
        "session": _session_part(page.session),
        "test_mode": not page.session.livemode,
        "merchant": merchant_view(page.profile),
        "invoice": invoice_view(page.invoice, page.labels),
    }


def dumps(view: JSON) -> str:
    return compact_json(view)
