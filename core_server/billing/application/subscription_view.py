"""The one public shape of a subscription, its items, its invoices and a preview: REST answers and the
`data.object` of every subscription, item and invoice event are rendered here (DESIGN §9).

Times are Unix seconds, except the item's `addedAt`/`removedAt`, which DESIGN §9 keeps in the spec's
camelCase table as ISO 8601 UTC without a zone.
"""

from __future__ import annotations

from datetime import datetime

from core_server.billing.domain.invoice import Invoice, InvoiceLine
from core_server.billing.domain.subscription import Subscription
from core_server.billing.domain.subscription_changes import Preview
from core_server.billing.domain.subscription_item import SubscriptionItem
from core_server.kernel.application.outbox import OutboxEvent, render_events
from core_server.kernel.domain.public_json import JSON, compact_json, unix_seconds


def _unix(moment: datetime | None) -> int | None:
    return unix_seconds(moment) if moment is not None else None


def _iso(moment: datetime | None) -> str | None:
    return moment.strftime("%Y-%m-%dT%H:%M:%S") if moment is not None else None


def item_view(item: SubscriptionItem) -> JSON:
    return {
        "id": item.id,
        "object": "subscription_item",
        "subscriptionId": item.subscription_id,
        "priceId": item.price_id,
        "quantity": item.quantity,
        "status": item.status.value,
        "prorationBehavior": item.proration_behavior.value,
        "prorationAmountCents": item.proration_amount_cents,
        "isBaseItem": item.is_base_item,
        "addedAt": _iso(item.added_at),
        "removedAt": _iso(item.removed_at),
        "metadata": dict(item.metadata),
        "created": unix_seconds(item.created),
        "livemode": item.livemode,
    }


def ordered_items(subscription: Subscription) -> list[SubscriptionItem]:
    """The base item first, then the others in the order they were added."""
    return sorted(subscription.items, key=lambda item: (not item.is_base_item, item.added_at, item.created))


def subscription_view(subscription: Subscription) -> JSON:
    return {
        "id": subscription.id,
        "object": "subscription",
        "customer_id": subscription.customer_id,
        "price_id": subscription.price_id,
        "status": subscription.status.value,
        "collection_method": subscription.collection_method,
        "tax_rate_id": subscription.tax_rate_id,
        "trial_start": _unix(subscription.trial_start),
        "trial_end": _unix(subscription.trial_end),
        "current_period_start": unix_seconds(subscription.current_period_start),
        "current_period_end": unix_seconds(subscription.current_period_end),
        "cancel_at_period_end": subscription.cancel_at_period_end,
        "canceled_at": _unix(subscription.canceled_at),
        "cancel_reason": subscription.cancel_reason,
        "paused_at": _unix(subscription.paused_at),
        "cancel_refund": subscription.cancel_refund,
        "items": [item_view(item) for item in ordered_items(subscription)],
        "latest_invoice": subscription.latest_invoice,
        "metadata": dict(subscription.metadata),
        "created": unix_seconds(subscription.created),
        "livemode": subscription.livemode,
    }


def line_view(line: InvoiceLine) -> JSON:
    return line.as_dict()


def invoice_view(invoice: Invoice) -> JSON:
    return {
        "id": invoice.id,
        "invoice_id": invoice.id,
        "object": "invoice",
        "subscription_id": invoice.subscription_id,
        "merchant_account_id": invoice.merchant_id,
        "customer_id": invoice.customer_id,
        "currency": invoice.currency,
        "subtotal_cents": invoice.subtotal_cents,
        "tax_cents": invoice.tax_cents,
        "total_cents": invoice.total_cents,
        # DESIGN §10.1; before the balance is applied (an instant after opening) nothing is applied yet.
        "credit_applied_cents": invoice.credit_applied_cents or 0,
        "amount_due_cents": (
            max(0, invoice.total_cents) if invoice.amount_due_cents is None else invoice.amount_due_cents
        ),
        "tax_rate_id": invoice.tax_rate_id,
        "status": invoice.status.value,
        "billing_reason": invoice.billing_reason.value,
        "period_start": unix_seconds(invoice.period_start),
        "period_end": unix_seconds(invoice.period_end),
        "attempt_count": invoice.attempt_count,
        "next_attempt_at": _unix(invoice.next_attempt_at),
        "lines": [line_view(line) for line in invoice.lines],
        "charge": invoice.charge_id,
        "failure_code": invoice.failure_code,
        "paid_at": _unix(invoice.paid_at),
        "created": unix_seconds(invoice.created),
        "livemode": invoice.livemode,
    }


def upcoming_view(invoice: Invoice) -> JSON:
    """The invoice `invoice.upcoming` announces: not made yet, so it has no id and is a DRAFT."""
    return {**invoice_view(invoice), "id": None, "invoice_id": None, "charge": None}


def preview_view(preview: Preview) -> JSON:
    return {
        "object": "subscription_preview",
        "lines": [line_view(line) for line in preview.lines],
        "subtotal_cents": preview.subtotal_cents,
        "tax_cents": preview.tax_cents,
        "total_cents": preview.total_cents,
        "due_now_cents": preview.due_now_cents,
    }


def _dumps(view: JSON) -> str:
    return compact_json(view)


def subscription_json(subscription: Subscription) -> str:
    return _dumps(subscription_view(subscription))


def subscription_item_json(item: SubscriptionItem) -> str:
    return _dumps(item_view(item))


def invoice_json(invoice: Invoice) -> str:
    return _dumps(invoice_view(invoice))


def preview_json(preview: Preview) -> str:
    return _dumps(preview_view(preview))


def subscription_events(subscription: Subscription) -> list[OutboxEvent]:
    """The turn's events, each with the full object it is about (subscription, item or invoice) as it
    stands after the turn: the same rendering as the REST answer."""
    rendered: list[OutboxEvent] = []
    for event in subscription.pending_events:
        view: JSON
        if event.type.startswith("subscription_item."):
            item = subscription.item(event.object_id)
            assert item is not None, event
            view = item_view(item)
        elif event.type == "invoice.upcoming" and subscription.upcoming is not None:
            view = upcoming_view(subscription.upcoming)
        elif event.type.startswith("invoice."):
            invoice = next(inv for inv in subscription.invoices if inv.id == event.object_id)
            view = invoice_view(invoice)
        else:
            view = subscription_view(subscription)
        rendered += render_events([event], view, livemode=subscription.livemode)
    return rendered
