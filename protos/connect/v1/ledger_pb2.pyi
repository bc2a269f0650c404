from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class TransactionType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TRANSACTION_TYPE_UNSPECIFIED: _ClassVar[TransactionType]
    TRANSACTION_TYPE_CHARGE: _ClassVar[TransactionType]
    TRANSACTION_TYPE_REFUND: _ClassVar[TransactionType]
    TRANSACTION_TYPE_DISPUTE: _ClassVar[TransactionType]
    TRANSACTION_TYPE_DISPUTE_WON: _ClassVar[TransactionType]
    TRANSACTION_TYPE_SUBSCRIPTION: _ClassVar[TransactionType]
    TRANSACTION_TYPE_PAYOUT: _ClassVar[TransactionType]
    TRANSACTION_TYPE_PAYOUT_FAILURE: _ClassVar[TransactionType]
    TRANSACTION_TYPE_CONVERSION: _ClassVar[TransactionType]

class TransactionStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TRANSACTION_STATUS_UNSPECIFIED: _ClassVar[TransactionStatus]
    TRANSACTION_STATUS_PENDING: _ClassVar[TransactionStatus]
    TRANSACTION_STATUS_AVAILABLE: _ClassVar[TransactionStatus]

class PayoutStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PAYOUT_STATUS_UNSPECIFIED: _ClassVar[PayoutStatus]
    PAYOUT_STATUS_PENDING: _ClassVar[PayoutStatus]
    PAYOUT_STATUS_PAID: _ClassVar[PayoutStatus]
    PAYOUT_STATUS_FAILED: _ClassVar[PayoutStatus]
TRANSACTION_TYPE_UNSPECIFIED: TransactionType
TRANSACTION_TYPE_CHARGE: TransactionType
TRANSACTION_TYPE_REFUND: TransactionType
TRANSACTION_TYPE_DISPUTE: TransactionType
TRANSACTION_TYPE_DISPUTE_WON: TransactionType
TRANSACTION_TYPE_SUBSCRIPTION: TransactionType
TRANSACTION_TYPE_PAYOUT: TransactionType
TRANSACTION_TYPE_PAYOUT_FAILURE: TransactionType
TRANSACTION_TYPE_CONVERSION: TransactionType
TRANSACTION_STATUS_UNSPECIFIED: TransactionStatus
TRANSACTION_STATUS_PENDING: TransactionStatus
TRANSACTION_STATUS_AVAILABLE: TransactionStatus
PAYOUT_STATUS_UNSPECIFIED: PayoutStatus
PAYOUT_STATUS_PENDING: PayoutStatus
PAYOUT_STATUS_PAID: PayoutStatus
PAYOUT_STATUS_FAILED: PayoutStatus

class BalanceTransaction(_message.Message):
    __slots__ = ("id", "type", "source", "amount", "fee", "tax", "net", "currency", "status", "available_on", "created", "payout", "livemode", "object_json", "mid_market_rate", "exchange_rate")
    ID_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    FEE_FIELD_NUMBER: _ClassVar[int]
    TAX_FIELD_NUMBER: _ClassVar[int]
    NET_FIELD_NUMBER: _ClassVar[int]
    CURRENCY_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    AVAILABLE_ON_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    PAYOUT_FIELD_NUMBER: _ClassVar[int]
    LIVEMODE_FIELD_NUMBER: _ClassVar[int]
    OBJECT_JSON_FIELD_NUMBER: _ClassVar[int]
    MID_MARKET_RATE_FIELD_NUMBER: _ClassVar[int]
    EXCHANGE_RATE_FIELD_NUMBER: _ClassVar[int]
    id: str
    type: TransactionType
    source: str
    amount: int
    fee: int
    tax: int
    net: int
    currency: str
    status: TransactionStatus
    available_on: int
    created: int
    payout: str
    livemode: bool
    object_json: str
    mid_market_rate: str
    exchange_rate: str
    def __init__(self, id: _Optional[str] = ..., type: _Optional[_Union[TransactionType, str]] = ..., source: _Optional[str] = ..., amount: _Optional[int] = ..., fee: _Optional[int] = ..., tax: _Optional[int] = ..., net: _Optional[int] = ..., currency: _Optional[str] = ..., status: _Optional[_Union[TransactionStatus, str]] = ..., available_on: _Optional[int] = ..., created: _Optional[int] = ..., payout: _Optional[str] = ..., livemode: _Optional[bool] = ..., object_json: _Optional[str] = ..., mid_market_rate: _Optional[str] = ..., exchange_rate: _Optional[str] = ...) -> None: ...

class CurrencyAmount(_message.Message):
    __slots__ = ("amount", "currency")
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    CURRENCY_FIELD_NUMBER: _ClassVar[int]
    amount: int
    currency: str
    def __init__(self, amount: _Optional[int] = ..., currency: _Optional[str] = ...) -> None: ...

class Balance(_message.Message):
    __slots__ = ("available", "pending", "livemode", "object_json")
    AVAILABLE_FIELD_NUMBER: _ClassVar[int]
    PENDING_FIELD_NUMBER: _ClassVar[int]
    LIVEMODE_FIELD_NUMBER: _ClassVar[int]
    OBJECT_JSON_FIELD_NUMBER: _ClassVar[int]
    available: _containers.RepeatedCompositeFieldContainer[CurrencyAmount]
    pending: _containers.RepeatedCompositeFieldContainer[CurrencyAmount]
    livemode: bool
    object_json: str
    def __init__(self, available: _Optional[_Iterable[_Union[CurrencyAmount, _Mapping]]] = ..., pending: _Optional[_Iterable[_Union[CurrencyAmount, _Mapping]]] = ..., livemode: _Optional[bool] = ..., object_json: _Optional[str] = ...) -> None: ...

class Payout(_message.Message):
    __slots__ = ("id", "amount", "currency", "status", "arrival_date", "failure_code", "created", "livemode", "object_json")
    ID_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    CURRENCY_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    ARRIVAL_DATE_FIELD_NUMBER: _ClassVar[int]
    FAILURE_CODE_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    LIVEMODE_FIELD_NUMBER: _ClassVar[int]
    OBJECT_JSON_FIELD_NUMBER: _ClassVar[int]
    id: str
    amount: int
    currency: str
    status: PayoutStatus
    arrival_date: int
    failure_code: str
    created: int
    livemode: bool
    object_json: str
    def __init__(self, id: _Optional[str] = ..., amount: _Optional[int] = ..., currency: _Optional[str] = ..., status: _Optional[_Union[PayoutStatus, str]] = ..., arrival_date: _Optional[int] = ..., failure_code: _Optional[str] = ..., created: _Optional[int] = ..., livemode: _Optional[bool] = ..., object_json: _Optional[str] = ...) -> None: ...
