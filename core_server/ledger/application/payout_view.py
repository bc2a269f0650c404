"""The one public shape of a payout (DESIGN §9): the REST answers and the `payout.*` events' object."""

from __future__ import annotations

from core_server.kernel.domain.public_json import JSON, unix_seconds
from core_server.ledger.domain.payout import Payout


def payout_view(payout: Payout) -> JSON:
    return {
        "id": payout.id,
        "object": "payout",
        "amount": payout.amount,
        "currency": payout.currency,
        "status": payout.status.value,
        "arrival_date": unix_seconds(payout.arrival_date),
        "failure_code": payout.failure_code,
        "created": unix_seconds(payout.created),
        "livemode": payout.livemode,
    }
