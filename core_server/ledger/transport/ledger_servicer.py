"""LedgerServicer: the LedgerService RPCs over the ledger use cases.

GetBalance, ListBalanceTransactions, ListPayouts and GetPayout answer a merchant (the gateway's GET
/balance, GET /balance-transactions, GET /payouts and GET /payouts/{id}); Reconcile is for internal
services and operators (`make reconcile`): no gateway route reaches it, and the core's port is guarded
like every other RPC (CORE_AUTH_TOKEN).
"""

from __future__ import annotations

import grpc
from connect.v1 import ledger_pb2, ledger_service_pb2_grpc
from connect.v1 import ledger_service_pb2 as pb

from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.ledger import TransactionType
from core_server.kernel.domain.public_json import unix_seconds
from core_server.kernel.transport.mapping import ENVIRONMENT_TO_PB, owner_from_caller
from core_server.kernel.transport.pages import page_fields, page_query
from core_server.ledger.application.ledger import LedgerService
from core_server.ledger.application.ledger_view import as_json, balance_transaction_view, balance_view
from core_server.ledger.application.payouts import PayoutService
from core_server.ledger.domain.balance import Balance, BalanceTransaction, CurrencyAmount, TransactionStatus
from core_server.ledger.domain.reconciliation import ReconciliationReport
from core_server.ledger.transport.payout_mapping import payout_to_pb
from core_server.rpc.status import rpc

TYPE_TO_PB = {
    TransactionType.CHARGE: ledger_pb2.TRANSACTION_TYPE_CHARGE,
    TransactionType.REFUND: ledger_pb2.TRANSACTION_TYPE_REFUND,
    TransactionType.DISPUTE: ledger_pb2.TRANSACTION_TYPE_DISPUTE,
    TransactionType.DISPUTE_WON: ledger_pb2.TRANSACTION_TYPE_DISPUTE_WON,
    TransactionType.SUBSCRIPTION: ledger_pb2.TRANSACTION_TYPE_SUBSCRIPTION,
    TransactionType.PAYOUT: ledger_pb2.TRANSACTION_TYPE_PAYOUT,
    TransactionType.PAYOUT_FAILURE: ledger_pb2.TRANSACTION_TYPE_PAYOUT_FAILURE,
    TransactionType.CONVERSION: ledger_pb2.TRANSACTION_TYPE_CONVERSION,
}
STATUS_TO_PB = {
    TransactionStatus.PENDING: ledger_pb2.TRANSACTION_STATUS_PENDING,
    TransactionStatus.AVAILABLE: ledger_pb2.TRANSACTION_STATUS_AVAILABLE,
}


def _amounts(amounts: tuple[CurrencyAmount, ...]) -> list[ledger_pb2.CurrencyAmount]:
    return [ledger_pb2.CurrencyAmount(amount=a.amount, currency=a.currency) for a in amounts]


def balance_to_pb(balance: Balance) -> ledger_pb2.Balance:
    return ledger_pb2.Balance(
        available=_amounts(balance.available),
        pending=_amounts(balance.pending),
        livemode=balance.livemode,
        object_json=as_json(balance_view(balance)),
    )


def transaction_to_pb(txn: BalanceTransaction, environment: Environment) -> ledger_pb2.BalanceTransaction:
    message = ledger_pb2.BalanceTransaction(
        id=txn.id,
        type=TYPE_TO_PB[txn.type],
        source=txn.source,
        amount=txn.amount,
        fee=txn.fee,
        tax=txn.tax,
        net=txn.net,
        currency=txn.currency,
        status=STATUS_TO_PB[txn.status],
        available_on=unix_seconds(txn.available_on),
        created=unix_seconds(txn.created),
        livemode=environment.livemode,
        object_json=as_json(balance_transaction_view(txn, environment)),
    )
    if txn.payout is not None:
        message.payout = txn.payout
    if txn.mid_market_rate is not None and txn.exchange_rate is not None:
        message.mid_market_rate = str(txn.mid_market_rate)
        message.exchange_rate = str(txn.exchange_rate)
    return message


def report_to_pb(report: ReconciliationReport) -> pb.ReconcileResponse:
    return pb.ReconcileResponse(
        ok=report.ok,
        balances=[
            pb.ReconciledBalance(
                merchant_id=line.merchant_id,
                environment=ENVIRONMENT_TO_PB[Environment(line.environment)],
                currency=line.currency,
                available=line.available,
                pending=line.pending,
                rows_net=line.rows_net,
                row_count=line.row_count,
            )
            for line in report.lines
        ],
        findings=[
            pb.ReconciliationFinding(
                kind=finding.kind.value,
                merchant_id=finding.merchant_id,
                environment=ENVIRONMENT_TO_PB[Environment(finding.environment)],
                currency=finding.currency,
                source=finding.source,
                detail=finding.detail,
            )
            for finding in report.findings
        ],
    )


class LedgerServicer(ledger_service_pb2_grpc.LedgerServiceServicer):
    def __init__(self, ledger: LedgerService, payouts: PayoutService) -> None:
        self._ledger = ledger
        self._payouts = payouts

    @rpc
    async def GetBalance(
        self, request: pb.GetBalanceRequest, context: grpc.aio.ServicerContext
    ) -> pb.GetBalanceResponse:
        balance = await self._ledger.balance(owner_from_caller(request.caller))
        return pb.GetBalanceResponse(balance=balance_to_pb(balance))

    @rpc
    async def ListBalanceTransactions(
        self, request: pb.ListBalanceTransactionsRequest, context: grpc.aio.ServicerContext
    ) -> pb.ListBalanceTransactionsResponse:
        owner = owner_from_caller(request.caller)
        page = await self._ledger.list(
            owner,
            type=request.type or None,
            payout=request.payout or None,
            currency=request.currency or None,
            **page_query(request),
        )
        return pb.ListBalanceTransactionsResponse(
            transactions=[transaction_to_pb(t, owner.environment) for t in page.items],
            **page_fields(page, pb.ListBalanceTransactionsResponse),
        )

    @rpc
    async def Reconcile(
        self, request: pb.ReconcileRequest, context: grpc.aio.ServicerContext
    ) -> pb.ReconcileResponse:
        return report_to_pb(await self._ledger.reconcile())

    @rpc
    async def ListPayouts(
        self, request: pb.ListPayoutsRequest, context: grpc.aio.ServicerContext
    ) -> pb.ListPayoutsResponse:
        page = await self._payouts.list(
            owner_from_caller(request.caller),
            status=request.status or None,
            currency=request.currency or None,
            **page_query(request),
        )
        return pb.ListPayoutsResponse(
            payouts=[payout_to_pb(p) for p in page.items],
            **page_fields(page, pb.ListPayoutsResponse),
        )

    @rpc
    async def GetPayout(
        self, request: pb.GetPayoutRequest, context: grpc.aio.ServicerContext
    ) -> pb.GetPayoutResponse:
        payout = await self._payouts.get(owner_from_caller(request.caller), request.id)
        return pb.GetPayoutResponse(payout=payout_to_pb(payout))
