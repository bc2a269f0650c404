"""Mapping between the rows of subscriptions, their items, pending prorations, invoices and notices and the
domain.

Invoice lines are stored as `InvoiceLine.as_dict()` (periods in Unix seconds, the proration's inputs
beside the amount) and read back to the same lines; a pending proration keeps its line in columns.
A paid invoice's merchant credit is written once, beside the invoice, from `credit_params`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

from psycopg.types.json import Jsonb

from core_server.billing.domain.billing_steps import next_step_at
from core_server.billing.domain.invoice import BillingReason, Invoice, InvoiceLine, InvoiceStatus, LineKind
from core_server.billing.domain.proration import ProrationInputs
from core_server.billing.domain.subscription import Subscription
from core_server.billing.domain.subscription_item import (
    BilledTranche,
    ItemProration,
    ItemStatus,
    PendingProration,
    SubscriptionItem,
)
from core_server.billing.domain.subscription_lifecycle import PendingCancelRefund
from core_server.billing.domain.subscription_status import SubscriptionStatus
from core_server.kernel.domain.environment import Environment


def subscription_params(subscription: Subscription) -> dict[str, Any]:
    pending = subscription.pending_cancel_refund
    return {
        "id": subscription.id,
        "merchant_id": subscription.merchant_id,
        "environment": subscription.environment.value,
        "customer_id": subscription.customer_id,
        "price_id": subscription.price_id,
        "currency": subscription.currency,
        "interval": subscription.interval,
        "interval_count": subscription.interval_count,
        "status": subscription.status.value,
        "collection_method": subscription.collection_method,
        "tax_rate_id": subscription.tax_rate_id,
        "trial_start": subscription.trial_start,
        "trial_end": subscription.trial_end,
        "billing_anchor": subscription.billing_anchor,
        "period_index": subscription.period_index,
        "current_period_start": subscription.current_period_start,
        "current_period_end": subscription.current_period_end,
        "cancel_at_period_end": subscription.cancel_at_period_end,
        "canceled_at": subscription.canceled_at,
        "cancel_reason": subscription.cancel_reason,
        "paused_at": subscription.paused_at,
        "unpaid_at": subscription.unpaid_at,
        "latest_invoice": subscription.latest_invoice,
        "metadata": Jsonb(dict(subscription.metadata)),
        "idempotency_key": subscription.idempotency_key,
        "created_at": subscription.created,
        "cancel_refund": subscription.cancel_refund,
        "cancel_refund_key": subscription.cancel_refund_key,
        "cancel_refund_charge": pending.charge_id if pending else None,
        "cancel_refund_cents": pending.amount_cents if pending else None,
        # The billing run's index (migration 0026): when this state's earliest step falls due.
        "next_step_at": next_step_at(subscription),
    }


def item_params(items: Sequence[SubscriptionItem]) -> dict[str, Any]:
    """The arrays the items' upsert unnests, one element per item."""
    return {
        "item_ids": [i.id for i in items],
        "item_price_ids": [i.price_id for i in items],
        "item_unit_amounts": [i.unit_amount_cents for i in items],
        "item_quantities": [i.quantity for i in items],
        "item_statuses": [i.status.value for i in items],
        "item_behaviors": [i.proration_behavior.value for i in items],
        "item_proration_amounts": [i.proration_amount_cents for i in items],
        "item_is_base": [i.is_base_item for i in items],
        "item_added_at": [i.added_at for i in items],
        "item_removed_at": [i.removed_at for i in items],
        "item_metadata": [Jsonb(dict(i.metadata)) for i in items],
        "item_created_at": [i.created for i in items],
        "item_billed": [
            Jsonb([[t.unit_amount_cents, t.quantity, t.price_id] for t in i.billed]) for i in items
        ],
    }


def proration_params(prorations: Sequence[PendingProration]) -> dict[str, Any]:
    lines = [p.line for p in prorations]
    return {
        "pp_ids": [p.id for p in prorations],
        "pp_item_ids": [p.item_id for p in prorations],
        "pp_kinds": [line.kind.value for line in lines],
        "pp_descriptions": [line.description for line in lines],
        "pp_amounts": [line.amount_cents for line in lines],
        "pp_quantities": [line.quantity for line in lines],
        "pp_price_ids": [line.price_id for line in lines],
        "pp_period_starts": [line.period_start for line in lines],
        "pp_period_ends": [line.period_end for line in lines],
        "pp_prorations": [_inputs_json(line.proration) for line in lines],
        "pp_invoice_ids": [p.invoice_id for p in prorations],
        "pp_billed": [p.billed for p in prorations],
        "pp_created_at": [p.created for p in prorations],
    }


def invoice_params(invoices: Sequence[Invoice]) -> dict[str, Any]:
    return {
        "inv_ids": [i.id for i in invoices],
        "inv_merchant_ids": [i.merchant_id for i in invoices],
        "inv_environments": [i.environment.value for i in invoices],
        "inv_customer_ids": [i.customer_id for i in invoices],
        "inv_currencies": [i.currency for i in invoices],
        "inv_lines": [Jsonb([line.as_dict() for line in i.lines]) for i in invoices],
        "inv_subtotals": [i.subtotal_cents for i in invoices],
        "inv_taxes": [i.tax_cents for i in invoices],
        "inv_totals": [i.total_cents for i in invoices],
        "inv_tax_rate_ids": [i.tax_rate_id for i in invoices],
        "inv_statuses": [i.status.value for i in invoices],
        "inv_reasons": [i.billing_reason.value for i in invoices],
        "inv_period_starts": [i.period_start for i in invoices],
        "inv_period_ends": [i.period_end for i in invoices],
        "inv_attempts": [i.attempt_count for i in invoices],
        "inv_next_attempts": [i.next_attempt_at for i in invoices],
        "inv_charge_ids": [i.charge_id for i in invoices],
        "inv_paid_at": [i.paid_at for i in invoices],
        "inv_created_at": [i.created for i in invoices],
        "inv_first_failed_at": [i.first_failed_at for i in invoices],
        "inv_merchant_fees": [i.merchant_fee_cents for i in invoices],
        "inv_merchant_nets": [i.merchant_net_cents for i in invoices],
        "inv_credit_applied": [i.credit_applied_cents for i in invoices],
        "inv_amount_due": [i.amount_due_cents for i in invoices],
        "inv_failure_codes": [i.failure_code for i in invoices],
    }


def credited(invoices: Sequence[Invoice]) -> list[Invoice]:
    """The invoices whose merchant credit a write records: PAID, with the credit computed."""
    return [
        i
        for i in invoices
        if i.status is InvoiceStatus.PAID
        and i.merchant_fee_cents is not None
        and i.merchant_net_cents is not None
    ]


def credit_params(invoices: Sequence[Invoice]) -> dict[str, Any]:
    """The arrays of the credits' insert, one element per `credited` invoice; dated when it was paid."""
    paid = credited(invoices)
    return {
        "cr_invoice_ids": [i.id for i in paid],
        "cr_currencies": [i.currency for i in paid],
        "cr_totals": [i.charged_cents for i in paid],
        "cr_fees": [i.merchant_fee_cents for i in paid],
        "cr_taxes": [i.tax_share_cents for i in paid],
        "cr_nets": [i.merchant_net_cents for i in paid],
        "cr_created_at": [i.paid_at for i in paid],
    }


def notice_params(notices: Iterable[tuple[str, datetime]]) -> dict[str, Any]:
    """The arrays of the notices' insert: every (event type, announced end) the subscription holds."""
    ordered = sorted(notices)
    return {
        "notice_kinds": [kind for kind, _ in ordered],
        "notice_announced": [announced for _, announced in ordered],
    }


def _inputs_json(inputs: ProrationInputs | None) -> Jsonb | None:
    return None if inputs is None else Jsonb(inputs.as_dict())


def _inputs_from(data: dict[str, Any] | None) -> ProrationInputs | None:
    if data is None:
        return None
    return ProrationInputs(
        seconds_remaining=int(data["seconds_remaining"]),
        seconds_total=int(data["seconds_total"]),
        unit_amount_cents=int(data["unit_amount_cents"]),
        quantity_delta=int(data["quantity_delta"]),
        unrounded=str(data["unrounded"]),
    )


def line_from_json(data: dict[str, Any]) -> InvoiceLine:
    """The inverse of `InvoiceLine.as_dict()`."""
    return InvoiceLine(
        kind=LineKind(data["kind"]),
        description=data["description"],
        amount_cents=int(data["amount_cents"]),
        quantity=int(data["quantity"]),
        price_id=data["price_id"],
        period_start=datetime.fromtimestamp(int(data["period_start"]), tz=UTC),
        period_end=datetime.fromtimestamp(int(data["period_end"]), tz=UTC),
        proration=_inputs_from(data["proration"]),
    )


def item_from_row(row: dict[str, Any], environment: Environment) -> SubscriptionItem:
    return SubscriptionItem(
        id=row["id"],
        subscription_id=row["subscription_id"],
        environment=environment,
        price_id=row["price_id"],
        unit_amount_cents=row["unit_amount_cents"],
        quantity=row["quantity"],
        status=ItemStatus(row["status"]),
        proration_behavior=ItemProration(row["proration_behavior"]),
        proration_amount_cents=row["proration_amount_cents"],
        is_base_item=row["is_base_item"],
        added_at=row["added_at"],
        removed_at=row["removed_at"],
        metadata=dict(row["metadata"]),
        created=row["created_at"],
        billed=tuple(_tranche(part, row["price_id"]) for part in row["billed"]),
    )


def _tranche(part: list[Any], item_price_id: str) -> BilledTranche:
    """[unit, quantity, price]; rows of migration 0018 hold [unit, quantity], billed at the item's price."""
    price_id = str(part[2]) if len(part) > 2 else item_price_id
    return BilledTranche(int(part[0]), int(part[1]), price_id)


def proration_from_row(row: dict[str, Any]) -> PendingProration:
    line = InvoiceLine(
        kind=LineKind(row["kind"]),
        description=row["description"],
        amount_cents=row["amount_cents"],
        quantity=row["quantity"],
        price_id=row["price_id"],
        period_start=row["period_start"],
        period_end=row["period_end"],
        proration=_inputs_from(row["proration"]),
    )
    return PendingProration(
        id=row["id"],
        item_id=row["item_id"],
        line=line,
        created=row["created_at"],
        invoice_id=row["invoice_id"],
        billed=row["billed"],
    )


def invoice_from_row(row: dict[str, Any]) -> Invoice:
    return Invoice(
        id=row["id"],
        merchant_id=row["merchant_id"],
        environment=Environment(row["environment"]),
        subscription_id=row["subscription_id"],
        customer_id=row["customer_id"],
        currency=row["currency"],
        lines=tuple(line_from_json(line) for line in row["lines"]),
        subtotal_cents=row["subtotal_cents"],
        tax_cents=row["tax_cents"],
        total_cents=row["total_cents"],
        tax_rate_id=row["tax_rate_id"],
        status=InvoiceStatus(row["status"]),
        billing_reason=BillingReason(row["billing_reason"]),
        period_start=row["period_start"],
        period_end=row["period_end"],
        attempt_count=row["attempt_count"],
        next_attempt_at=row["next_attempt_at"],
        charge_id=row["charge_id"],
        paid_at=row["paid_at"],
        created=row["created_at"],
        first_failed_at=row["first_failed_at"],
        merchant_fee_cents=row["merchant_fee_cents"],
        merchant_net_cents=row["merchant_net_cents"],
        credit_applied_cents=row["credit_applied_cents"],
        amount_due_cents=row["amount_due_cents"],
        failure_code=row["failure_code"],
    )


def subscription_from_row(
    row: dict[str, Any],
    items: list[SubscriptionItem],
    prorations: list[PendingProration],
    invoices: list[Invoice],
    notices: set[tuple[str, datetime]],
) -> Subscription:
    return Subscription(
        id=row["id"],
        merchant_id=row["merchant_id"],
        environment=Environment(row["environment"]),
        customer_id=row["customer_id"],
        price_id=row["price_id"],
        currency=row["currency"],
        interval=row["billing_interval"],
        interval_count=row["interval_count"],
        status=SubscriptionStatus(row["status"]),
        collection_method=row["collection_method"],
        tax_rate_id=row["tax_rate_id"],
        trial_start=row["trial_start"],
        trial_end=row["trial_end"],
        billing_anchor=row["billing_anchor"],
        period_index=row["period_index"],
        current_period_start=row["current_period_start"],
        current_period_end=row["current_period_end"],
        cancel_at_period_end=row["cancel_at_period_end"],
        canceled_at=row["canceled_at"],
        cancel_reason=row["cancel_reason"],
        paused_at=row["paused_at"],
        latest_invoice=row["latest_invoice"],
        metadata=dict(row["metadata"]),
        created=row["created_at"],
        idempotency_key=row["idempotency_key"],
        unpaid_at=row["unpaid_at"],
        cancel_refund=row["cancel_refund"],
        cancel_refund_key=row["cancel_refund_key"],
        pending_cancel_refund=(
            PendingCancelRefund(row["cancel_refund_charge"], row["cancel_refund_cents"])
            if row["cancel_refund_cents"] is not None
            else None
        ),
        notices=notices,
        items=items,
        prorations=prorations,
        invoices=invoices,
    )
