"""The one public shape of a customer: the REST answers and every customer event's `data.object`."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

from core_server.billing.domain.customer import Customer

JSON = dict[str, Any]


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
        "created": int(customer.created.timestamp()),
        "livemode": customer.livemode,
    }


def customer_json(customer: Customer) -> str:
    """The view as carried to the gateway in `object_json`."""
    return json.dumps(customer_view(customer), separators=(",", ":"))
