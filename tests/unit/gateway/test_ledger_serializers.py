"""GET /balance and GET /balance-transactions bodies: DESIGN §9's shapes, valid against the published
schemas (which forbid unknown properties)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from connect.v1 import ledger_pb2
from jsonschema import Draft202012Validator

from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.ledger import TransactionType
from core_server.ledger.domain.balance import (
    Balance,
    BalanceTransaction,
    CurrencyTotals,
    TransactionStatus,
)
from core_server.ledger.transport.ledger_servicer import TYPE_TO_PB, balance_to_pb, transaction_to_pb
from http_gateway.operational.openapi import document
from tests.support.core_shapes import NOW, NOW_UNIX


def _validator(name: str) -> Draft202012Validator:
    components = document()["components"]
    return Draft202012Validator({"$ref": f"#/components/schemas/{name}", "components": components})


def _txn(kind: TransactionType, payout: str | None = None) -> BalanceTransaction:
    return BalanceTransaction(
        id="txn_" + "a" * 24,
        type=kind,
        source="ch_1",
        amount=-2500,
        fee=0,
        tax=0,
        net=-2500,
        currency="usd",
        available_on=NOW,
        created=NOW,
        status=TransactionStatus.AVAILABLE,
        payout=payout,
    )


def test_the_balance_body() -> None:
    balance = Balance.of([CurrencyTotals("usd", 9680, 175), CurrencyTotals("eur", 0, -50)], livemode=False)
    body = json.loads(balance_to_pb(balance).object_json)
    assert body == {
        "object": "balance",
        "available": [{"amount": 0, "currency": "eur"}, {"amount": 9680, "currency": "usd"}],
        "pending": [{"amount": -50, "currency": "eur"}, {"amount": 175, "currency": "usd"}],
        "livemode": False,
    }
    assert not list(_validator("Balance").iter_errors(body))


@pytest.mark.parametrize("kind", list(TransactionType))
@pytest.mark.parametrize("payout", [None, "po_123"])
def test_every_balance_transaction_type_renders_and_validates(
    kind: TransactionType, payout: str | None
) -> None:
    body: dict[str, Any] = json.loads(transaction_to_pb(_txn(kind, payout), Environment.LIVE).object_json)
    assert body["type"] == kind.value
    assert (body["object"], body["status"], body["payout"], body["livemode"]) == (
        "balance_transaction",
        "available",
        payout,
        True,
    )
    assert (body["created"], body["available_on"], body["amount"], body["net"]) == (
        NOW_UNIX,
        NOW_UNIX,
        -2500,
        -2500,
    )
    assert not list(_validator("BalanceTransaction").iter_errors(body))


def test_every_proto_type_has_a_domain_type() -> None:
    named = set(TYPE_TO_PB.values())
    assert named == {v.number for v in ledger_pb2.TransactionType.DESCRIPTOR.values if v.number}


def test_a_payout_body_is_the_cores_view_and_valid_against_the_schema() -> None:
    from datetime import date, timedelta

    from core_server.ledger.domain.payout import Payout, PayoutStatus
    from core_server.ledger.transport.payout_mapping import payout_to_pb

    payout = Payout(
        id="po_" + "b" * 24,
        merchant_id="acct_1",
        livemode=False,
        amount=14_505,
        currency="usd",
        status=PayoutStatus.FAILED,
        payout_date=date(2026, 11, 25),
        arrival_date=NOW + timedelta(days=1),
        created=NOW,
        failure_code="account_closed",
    )
    body = json.loads(payout_to_pb(payout).object_json)
    assert body["failure_code"] == "account_closed"
    assert body["created"] == NOW_UNIX
    _validator("Payout").validate(body)
