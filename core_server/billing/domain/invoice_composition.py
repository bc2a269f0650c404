"""What a subscription's invoice is made of: the item lines of a period, the pending prorations it takes,
a proration line, and the dunning schedule for a declined one (DESIGN §9).

Pure functions of explicit arguments, apart from the aggregate (subscription.py and its invoicing,
subscription_invoicing.py), so that its moves read as moves and the composition rules read, and test,
without a subscription to build.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from typing import TypeVar

from connect.errors import AMOUNT_TOO_LARGE

from core_server.billing.domain.invoice import (
    BillingReason,
    Invoice,
    InvoiceLine,
    LineKind,
    invoice_totals,
    new_invoice_id,
)
from core_server.billing.domain.proration import Proration, ProrationInputs
from core_server.billing.domain.subscription_item import SubscriptionItem
from core_server.billing.domain.tax import TaxRate
from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.errors import InvalidRequest
from core_server.kernel.domain.money import MAX_AMOUNT

MAX_INVOICE_LINES = 250
"""The most lines one invoice carries (issue 23): an invoice stays a bounded object to save, show and
send. A period's item lines always fit (at most 20 active items, DESIGN §10.3); pending prorations fill
the rest, oldest first, and those beyond it wait for the next invoice — never dropped."""

T = TypeVar("T")

RETRY_AFTER = (timedelta(days=3), timedelta(days=8), timedelta(days=15))
"""DESIGN §9 dunning: retries 3, 8 and 15 days after the first failure; then UNCOLLECTIBLE and UNPAID."""


def next_retry(first_failed_at: datetime, now: datetime) -> datetime | None:
    """The next retry after a failure at `now`, counted from the first failure; None when none is left."""
    retries = [first_failed_at + after for after in RETRY_AFTER]
    return next((at for at in retries if at > now), None)


def item_lines(items: Iterable[SubscriptionItem], start: datetime, end: datetime) -> list[InvoiceLine]:
    """One line per item the period starting at `start` bills: the base item's, then add-ons'."""
    return [
        InvoiceLine(
            kind=LineKind.SUBSCRIPTION if item.is_base_item else LineKind.ADDON,
            description=f"{item.quantity} × {item.price_id}",
            amount_cents=item.unit_amount_cents * item.quantity,
            quantity=item.quantity,
            price_id=item.price_id,
            period_start=start,
            period_end=end,
            proration=None,
        )
        for item in items
        if item.billed_in(start)
    ]


def check_invoice_limit(lines: Sequence[InvoiceLine], rate: TaxRate | None, param: str) -> None:
    """DESIGN §10.3: an invoice must fit a charge. A change whose next regular invoice (these lines under
    the rate) would exceed the largest charge is refused with 400 `amount_too_large` on `param`, before
    anything is saved."""
    total = invoice_totals(lines, rate).total
    if total > MAX_AMOUNT:
        raise InvalidRequest(
            f"The next invoice would be {total}, above the largest charge of {MAX_AMOUNT}.",
            code=AMOUNT_TOO_LARGE.code,
            param=param,
        )


def prorations_that_fit(waiting: Sequence[T], taken_lines: int) -> list[T]:
    """The oldest of the `waiting` prorations (in the order they were made) that fit beside
    `taken_lines` other lines within MAX_INVOICE_LINES; the rest wait for a later invoice."""
    return list(waiting[: max(0, MAX_INVOICE_LINES - taken_lines)])


def open_invoice(
    merchant_id: str,
    environment: Environment,
    subscription_id: str,
    customer_id: str,
    currency: str,
    lines: Sequence[InvoiceLine],
    rate: TaxRate | None,
    reason: BillingReason,
    period_start: datetime,
    period_end: datetime,
    now: datetime,
) -> Invoice:
    """A new invoice under a fresh id, already OPEN: its first charge attempt is due at once."""
    invoice = Invoice.draft(
        new_invoice_id(),
        merchant_id,
        environment,
        subscription_id,
        customer_id,
        currency,
        lines,
        rate,
        reason,
        period_start,
        period_end,
        now,
    )
    invoice.open()
    return invoice


def proration_line(
    kind: LineKind,
    description: str,
    price_id: str,
    proration: Proration,
    period_start: datetime,
    period_end: datetime,
) -> InvoiceLine:
    """The line of a proration: its amount, the moved quantity, and the formula's inputs."""
    inputs: ProrationInputs = proration.inputs
    return InvoiceLine(
        kind=kind,
        description=description,
        amount_cents=proration.amount_cents,
        quantity=abs(inputs.quantity_delta),
        price_id=price_id,
        period_start=period_start,
        period_end=period_end,
        proration=inputs,
    )
