"""The changes a subscription can be asked to make, as the preview names them (DESIGN §9:
`POST /subscriptions/{id}/preview` takes exactly one), the price-change proration behaviours, and the
preview's answer."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from core_server.billing.domain.invoice import InvoiceLine, invoice_totals
from core_server.billing.domain.tax import TaxRate


class PriceProration(StrEnum):
    """How `PATCH /subscriptions/{id} {price_id}` settles the rest of the period (DESIGN §9)."""

    CREATE_PRORATIONS = "create_prorations"
    ALWAYS_INVOICE = "always_invoice"
    NONE = "none"


@dataclass(frozen=True, slots=True)
class PriceChange:
    price_id: str
    proration_behavior: str | None = None


@dataclass(frozen=True, slots=True)
class AddItem:
    price_id: str
    quantity: int = 1
    proration_behavior: str | None = None


@dataclass(frozen=True, slots=True)
class UpdateItem:
    item_id: str
    quantity: int


@dataclass(frozen=True, slots=True)
class RemoveItem:
    item_id: str
    immediate: bool = False


PreviewChange = PriceChange | AddItem | UpdateItem | RemoveItem


@dataclass(frozen=True, slots=True)
class Preview:
    lines: tuple[InvoiceLine, ...]
    subtotal_cents: int
    tax_cents: int
    total_cents: int
    due_now_cents: int

    @classmethod
    def of(cls, lines: Sequence[InvoiceLine], rate: TaxRate | None, due_now: bool) -> Preview:
        """The lines a change made, totalled under `rate`; all of it due now when the change opened an
        invoice, otherwise nothing (the lines wait for the next period's invoice)."""
        totals = invoice_totals(lines, rate)
        return cls(
            lines=tuple(lines),
            subtotal_cents=totals.subtotal,
            tax_cents=totals.tax,
            total_cents=totals.total,
            due_now_cents=totals.total if due_now else 0,
        )
