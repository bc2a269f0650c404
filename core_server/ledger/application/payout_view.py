"""The one public shape of a payout (DESIGN §9): the REST answers and the `payout.*` events' object."""

from __future__ import annotations

from core_server.ledger.application.ledger_view import JSON
from core_server.ledger.domain.payout import Payout


def payout_view(payout: Payout) -> JSON:
    return {
        "id": payout.id,
        "object": "payout",
        "amount": payout.amount,
        "currency": payout.currency,
        "status": payout.status.value,
        "arrival_date": int(payout.arrival_date.timestamp()),
        "failure_code": payout.failure_code,
        "created": int(payout.created.timestamp()),
        "livemode": payout.livemode,
    }
