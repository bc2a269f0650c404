"""The one public shape of a vaulted payment method: REST answers and `payment_method.*` events.

Only display fields: never the number, the CVC or the gateway token.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

from core_server.billing.domain.payment_method import PaymentMethod, PaymentMethodType

JSON = dict[str, Any]


def payment_method_view(method: PaymentMethod) -> JSON:
    view: JSON = {
        "id": method.id,
        "object": "payment_method",
        "customer": method.customer_id,
        "type": method.type.value,
    }
    if method.type is PaymentMethodType.CARD and method.card is not None:
        view["card"] = asdict(method.card)
    else:
        view["paypal"] = {"email": method.paypal_email}
    view["created"] = int(method.created.timestamp())
    view["livemode"] = method.livemode
    return view


def payment_method_json(method: PaymentMethod) -> str:
    return json.dumps(payment_method_view(method), separators=(",", ":"))
