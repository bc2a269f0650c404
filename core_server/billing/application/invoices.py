"""Invoice reads: one invoice of the tenant's, and the filtered, cursor-paged list (DESIGN §9).

Invoices change only through their subscription's actor (subscriptions.py, invoice_collection.py);
here they are only read.
"""

from __future__ import annotations

from core_server.billing.application.parsing import parse_choice
from core_server.billing.application.subscription_ports import InvoiceQuery, SubscriptionRepository
from core_server.billing.domain.invoice import INVOICE_ID_PREFIX, Invoice, InvoiceStatus
from core_server.kernel.application.owner import Owner
from core_server.kernel.application.pagination import Page, page_limit, require_cursor
from core_server.kernel.domain.errors import NotFound

INVOICE_ID_LENGTH = len(INVOICE_ID_PREFIX) + 32


def invoice_not_found(invoice_id: str) -> NotFound:
    """One answer for unknown, malformed and other tenants' invoices."""
    return NotFound(f"No such invoice: '{invoice_id[:100]}'", param="id")


async def find_invoice(subscriptions: SubscriptionRepository, owner: Owner, invoice_id: str) -> Invoice:
    found = None
    if invoice_id.startswith(INVOICE_ID_PREFIX) and len(invoice_id) == INVOICE_ID_LENGTH:
        found = await subscriptions.get_invoice(owner.merchant_id, owner.environment, invoice_id)
    if found is None:
        raise invoice_not_found(invoice_id)
    return found


class InvoiceService:
    def __init__(self, subscriptions: SubscriptionRepository) -> None:
        self._subscriptions = subscriptions

    async def get(self, owner: Owner, invoice_id: str) -> Invoice:
        return await find_invoice(self._subscriptions, owner, invoice_id)

    async def list(
        self,
        owner: Owner,
        *,
        subscription_id: str | None,
        customer_id: str | None,
        status: str | None,
        limit: int,
        starting_after: str | None,
    ) -> Page[Invoice]:
        limit = page_limit(limit)
        status_filter = parse_choice(InvoiceStatus, status or None, None, "status")

        async def exists(candidate: str) -> bool:
            return await self._subscriptions.invoice_exists(owner.merchant_id, owner.environment, candidate)

        await require_cursor(starting_after, "invoice", exists)
        return await self._subscriptions.list_invoices(
            InvoiceQuery(
                owner.merchant_id,
                owner.environment,
                subscription_id=subscription_id or None,
                customer_id=customer_id or None,
                status=status_filter.value if status_filter else None,
                limit=limit,
                starting_after=starting_after,
            )
        )
