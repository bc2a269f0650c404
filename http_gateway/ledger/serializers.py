"""pb2 ledger resources → the REST objects `balance`, `balance_transaction` and `payout` (DESIGN §9),
exactly as the core rendered them once (object_json), like every other resource."""

from __future__ import annotations

import json

from connect.v1 import ledger_pb2

from http_gateway.edge.serialization import JSON


def balance_json(balance: ledger_pb2.Balance) -> JSON:
    view: JSON = json.loads(balance.object_json)
    return view


def balance_transaction_json(txn: ledger_pb2.BalanceTransaction) -> JSON:
    view: JSON = json.loads(txn.object_json)
    return view


def payout_json(payout: ledger_pb2.Payout) -> JSON:
    view: JSON = json.loads(payout.object_json)
    return view
