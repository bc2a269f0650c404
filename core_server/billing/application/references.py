"""The objects a subscription request names by id — its customer, price and tax rate — read for the
caller's tenant, and the tax rate that applies to a subscription (DESIGN §9 resolution order).

A referenced object that is not the caller's is the same 404 as an unknown one, naming the request
field that referenced it (`customer_id`, `price_id`/`priceId`, `tax_rate_id`).
"""

from __future__ import annotations

from core_server.billing.application.customers import CustomerService
from core_server.billing.application.plans import PlanService
from core_server.billing.application.tax_rates import TaxRateService
from core_server.billing.domain.catalog import Price
from core_server.billing.domain.customer import Customer
from core_server.billing.domain.tax import TaxRate
from core_server.kernel.application.owner import Owner
from core_server.kernel.domain.errors import NotFound


def _as_param(error: NotFound, param: str) -> NotFound:
    return NotFound(error.message, param=param)


class BillingReferences:
    def __init__(self, plans: PlanService, customers: CustomerService, tax_rates: TaxRateService) -> None:
        self._plans = plans
        self._customers = customers
        self._tax_rates = tax_rates

    async def customer(self, owner: Owner, customer_id: str) -> Customer:
        try:
            return await self._customers.get(owner, customer_id)
        except NotFound as exc:
            raise _as_param(exc, "customer_id") from None

    async def price(self, owner: Owner, price_id: str, *, param: str = "price_id") -> Price:
        try:
            return await self._plans.get_price(owner, price_id)
        except NotFound as exc:
            raise _as_param(exc, param) from None

    async def tax_rate(self, owner: Owner, tax_rate_id: str) -> TaxRate:
        try:
            return await self._tax_rates.get(owner, tax_rate_id)
        except NotFound as exc:
            raise _as_param(exc, "tax_rate_id") from None

    async def rate_for(self, owner: Owner, tax_rate_id: str | None, customer_id: str) -> TaxRate | None:
        """The subscription's rate, else the merchant's active rate for the customer's address, else none.
        The customer (its address) is read only when the subscription names no rate: a billing run
        reads this for every subscription it bills."""
        if tax_rate_id:
            return await self._tax_rates.resolve(owner, tax_rate_id, None, None)
        customer = await self._customers.get(owner, customer_id)
        address = customer.address
        return await self._tax_rates.resolve(
            owner,
            tax_rate_id,
            address.country if address is not None else None,
            address.state if address is not None else None,
        )
