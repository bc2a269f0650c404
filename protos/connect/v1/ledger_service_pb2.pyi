from connect.v1 import common_pb2 as _common_pb2
from connect.v1 import ledger_pb2 as _ledger_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class GetBalanceRequest(_message.Message):
    __slots__ = ("caller",)
    CALLER_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ...) -> None: ...

class GetBalanceResponse(_message.Message):
    __slots__ = ("balance",)
    BALANCE_FIELD_NUMBER: _ClassVar[int]
    balance: _ledger_pb2.Balance
    def __init__(self, balance: _Optional[_Union[_ledger_pb2.Balance, _Mapping]] = ...) -> None: ...

class ListBalanceTransactionsRequest(_message.Message):
    __slots__ = ("caller", "type", "payout", "currency", "limit", "starting_after")
    CALLER_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    PAYOUT_FIELD_NUMBER: _ClassVar[int]
    CURRENCY_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    STARTING_AFTER_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    type: str
    payout: str
    currency: str
    limit: int
    starting_after: str
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., type: _Optional[str] = ..., payout: _Optional[str] = ..., currency: _Optional[str] = ..., limit: _Optional[int] = ..., starting_after: _Optional[str] = ...) -> None: ...

class ListBalanceTransactionsResponse(_message.Message):
    __slots__ = ("transactions", "has_more", "total_count")
    TRANSACTIONS_FIELD_NUMBER: _ClassVar[int]
    HAS_MORE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_COUNT_FIELD_NUMBER: _ClassVar[int]
    transactions: _containers.RepeatedCompositeFieldContainer[_ledger_pb2.BalanceTransaction]
    has_more: bool
    total_count: int
    def __init__(self, transactions: _Optional[_Iterable[_Union[_ledger_pb2.BalanceTransaction, _Mapping]]] = ..., has_more: _Optional[bool] = ..., total_count: _Optional[int] = ...) -> None: ...

class ReconcileRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ReconciledBalance(_message.Message):
    __slots__ = ("merchant_id", "environment", "currency", "available", "pending", "rows_net", "row_count")
    MERCHANT_ID_FIELD_NUMBER: _ClassVar[int]
    ENVIRONMENT_FIELD_NUMBER: _ClassVar[int]
    CURRENCY_FIELD_NUMBER: _ClassVar[int]
    AVAILABLE_FIELD_NUMBER: _ClassVar[int]
    PENDING_FIELD_NUMBER: _ClassVar[int]
    ROWS_NET_FIELD_NUMBER: _ClassVar[int]
    ROW_COUNT_FIELD_NUMBER: _ClassVar[int]
    merchant_id: str
    environment: _common_pb2.Environment
    currency: str
    available: int
    pending: int
    rows_net: int
    row_count: int
    def __init__(self, merchant_id: _Optional[str] = ..., environment: _Optional[_Union[_common_pb2.Environment, str]] = ..., currency: _Optional[str] = ..., available: _Optional[int] = ..., pending: _Optional[int] = ..., rows_net: _Optional[int] = ..., row_count: _Optional[int] = ...) -> None: ...

class ReconciliationFinding(_message.Message):
    __slots__ = ("kind", "merchant_id", "environment", "currency", "source", "detail")
    KIND_FIELD_NUMBER: _ClassVar[int]
    MERCHANT_ID_FIELD_NUMBER: _ClassVar[int]
    ENVIRONMENT_FIELD_NUMBER: _ClassVar[int]
    CURRENCY_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    kind: str
    merchant_id: str
    environment: _common_pb2.Environment
    currency: str
    source: str
    detail: str
    def __init__(self, kind: _Optional[str] = ..., merchant_id: _Optional[str] = ..., environment: _Optional[_Union[_common_pb2.Environment, str]] = ..., currency: _Optional[str] = ..., source: _Optional[str] = ..., detail: _Optional[str] = ...) -> None: ...

class ReconcileResponse(_message.Message):
    __slots__ = ("ok", "balances", "findings")
    OK_FIELD_NUMBER: _ClassVar[int]
    BALANCES_FIELD_NUMBER: _ClassVar[int]
    FINDINGS_FIELD_NUMBER: _ClassVar[int]
    ok: bool
    balances: _containers.RepeatedCompositeFieldContainer[ReconciledBalance]
    findings: _containers.RepeatedCompositeFieldContainer[ReconciliationFinding]
    def __init__(self, ok: _Optional[bool] = ..., balances: _Optional[_Iterable[_Union[ReconciledBalance, _Mapping]]] = ..., findings: _Optional[_Iterable[_Union[ReconciliationFinding, _Mapping]]] = ...) -> None: ...

class ListPayoutsRequest(_message.Message):
    __slots__ = ("caller", "status", "currency", "limit", "starting_after")
    CALLER_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    CURRENCY_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    STARTING_AFTER_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    status: str
    currency: str
    limit: int
    starting_after: str
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., status: _Optional[str] = ..., currency: _Optional[str] = ..., limit: _Optional[int] = ..., starting_after: _Optional[str] = ...) -> None: ...

class ListPayoutsResponse(_message.Message):
    __slots__ = ("payouts", "has_more", "total_count")
    PAYOUTS_FIELD_NUMBER: _ClassVar[int]
    HAS_MORE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_COUNT_FIELD_NUMBER: _ClassVar[int]
    payouts: _containers.RepeatedCompositeFieldContainer[_ledger_pb2.Payout]
    has_more: bool
    total_count: int
    def __init__(self, payouts: _Optional[_Iterable[_Union[_ledger_pb2.Payout, _Mapping]]] = ..., has_more: _Optional[bool] = ..., total_count: _Optional[int] = ...) -> None: ...

class GetPayoutRequest(_message.Message):
    __slots__ = ("caller", "id")
    CALLER_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    id: str
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., id: _Optional[str] = ...) -> None: ...

class GetPayoutResponse(_message.Message):
    __slots__ = ("payout",)
    PAYOUT_FIELD_NUMBER: _ClassVar[int]
    payout: _ledger_pb2.Payout
    def __init__(self, payout: _Optional[_Union[_ledger_pb2.Payout, _Mapping]] = ...) -> None: ...
