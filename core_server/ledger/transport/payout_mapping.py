"""Payouts as LedgerService messages."""

from __future__ import annotations

from connect.v1 import ledger_pb2

from core_server.kernel.domain.public_json import unix_seconds
from core_server.ledger.application.ledger_view import as_json
from core_server.ledger.application.payout_view import payout_view
from core_server.ledger.domain.payout import Payout, PayoutStatus

PAYOUT_STATUS_TO_PB = {
    PayoutStatus.PENDING: ledger_pb2.PAYOUT_STATUS_PENDING,
    PayoutStatus.PAID: ledger_pb2.PAYOUT_STATUS_PAID,
    PayoutStatus.FAILED: ledger_pb2.PAYOUT_STATUS_FAILED,
}


def payout_to_pb(payout: Payout) -> ledger_pb2.Payout:
    message = ledger_pb2.Payout(
        id=payout.id,
        amount=payout.amount,
        currency=payout.currency,
        status=PAYOUT_STATUS_TO_PB[payout.status],
        arrival_date=unix_seconds(payout.arrival_date),
        created=unix_seconds(payout.created),
        livemode=payout.livemode,
        object_json=as_json(payout_view(payout)),
    )
    if payout.failure_code is not None:
        message.failure_code = payout.failure_code
    return message
