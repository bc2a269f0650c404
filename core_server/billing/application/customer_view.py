"""The one public shape of a customer: the REST answers and every customer event's `data.object`."""

from __future__ import annotations

from dataclasses import asdict

from core_server.billing.domain.customer import Customer
from core_server.kernel.domain.public_json import JSON, compact_json, unix_seconds


def customer_view(customer: Customer) -> JSON:
    """DESIGN §9's customer object."""
    return {
        "id": customer.id,
        "object": "customer",
        "email": customer.email,
        "name": customer.name,
        "address": asdict(customer.address) if customer.address is not None else None,
        "default_payment_method": customer.default_payment_method,
        "metadata": dict(customer.metadata),
        "credit_balance": dict(sorted(customer.credit_balance.items())),
        "created": unix_seconds(customer.created),
        "livemode": customer.livemode,
    }


def customer_json(customer: Customer) -> str:
    """The view as carried to the gateway in `object_json`."""
    return compact_json(customer_view(customer))
