"""The one public shape of a vaulted payment method: REST answers and `payment_method.*` events.

Only display fields: never the number, the CVC or the gateway token.
"""

from __future__ import annotations

from dataclasses import asdict

from core_server.billing.domain.payment_method import PaymentMethod, PaymentMethodType
from core_server.kernel.domain.public_json import JSON, compact_json, unix_seconds


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
    view["created"] = unix_seconds(method.created)
    view["livemode"] = method.livemode
    return view


def payment_method_json(method: PaymentMethod) -> str:
    return compact_json(payment_method_view(method))
