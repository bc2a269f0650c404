from connect.v1 import charge_pb2 as _charge_pb2
from connect.v1 import common_pb2 as _common_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class CreateChargeRequest(_message.Message):
    __slots__ = ("caller", "amount", "currency", "description", "metadata", "return_url", "cancel_url", "customer_email", "idempotency")
    class MetadataEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    CALLER_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    CURRENCY_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    RETURN_URL_FIELD_NUMBER: _ClassVar[int]
    CANCEL_URL_FIELD_NUMBER: _ClassVar[int]
    CUSTOMER_EMAIL_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    amount: int
    currency: str
    description: str
    metadata: _containers.ScalarMap[str, str]
    return_url: str
    cancel_url: str
    customer_email: str
    idempotency: _common_pb2.Idempotency
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., amount: _Optional[int] = ..., currency: _Optional[str] = ..., description: _Optional[str] = ..., metadata: _Optional[_Mapping[str, str]] = ..., return_url: _Optional[str] = ..., cancel_url: _Optional[str] = ..., customer_email: _Optional[str] = ..., idempotency: _Optional[_Union[_common_pb2.Idempotency, _Mapping]] = ...) -> None: ...

class CreateChargeResponse(_message.Message):
    __slots__ = ("charge",)
    CHARGE_FIELD_NUMBER: _ClassVar[int]
    charge: _charge_pb2.Charge
    def __init__(self, charge: _Optional[_Union[_charge_pb2.Charge, _Mapping]] = ...) -> None: ...

class GetChargeRequest(_message.Message):
    __slots__ = ("caller", "charge_id")
    CALLER_FIELD_NUMBER: _ClassVar[int]
    CHARGE_ID_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    charge_id: str
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., charge_id: _Optional[str] = ...) -> None: ...

class GetChargeResponse(_message.Message):
    __slots__ = ("charge",)
    CHARGE_FIELD_NUMBER: _ClassVar[int]
    charge: _charge_pb2.Charge
    def __init__(self, charge: _Optional[_Union[_charge_pb2.Charge, _Mapping]] = ...) -> None: ...

class ListChargesRequest(_message.Message):
    __slots__ = ("caller", "status", "limit", "created_after", "created_before", "starting_after", "customer_email", "invoice_id")
    CALLER_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    CREATED_AFTER_FIELD_NUMBER: _ClassVar[int]
    CREATED_BEFORE_FIELD_NUMBER: _ClassVar[int]
    STARTING_AFTER_FIELD_NUMBER: _ClassVar[int]
    CUSTOMER_EMAIL_FIELD_NUMBER: _ClassVar[int]
    INVOICE_ID_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    status: _charge_pb2.ChargeStatus
    limit: int
    created_after: int
    created_before: int
    starting_after: str
    customer_email: str
    invoice_id: str
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., status: _Optional[_Union[_charge_pb2.ChargeStatus, str]] = ..., limit: _Optional[int] = ..., created_after: _Optional[int] = ..., created_before: _Optional[int] = ..., starting_after: _Optional[str] = ..., customer_email: _Optional[str] = ..., invoice_id: _Optional[str] = ...) -> None: ...

class ListChargesResponse(_message.Message):
    __slots__ = ("charges", "has_more", "total_count")
    CHARGES_FIELD_NUMBER: _ClassVar[int]
    HAS_MORE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_COUNT_FIELD_NUMBER: _ClassVar[int]
    charges: _containers.RepeatedCompositeFieldContainer[_charge_pb2.Charge]
    has_more: bool
    total_count: int
    def __init__(self, charges: _Optional[_Iterable[_Union[_charge_pb2.Charge, _Mapping]]] = ..., has_more: _Optional[bool] = ..., total_count: _Optional[int] = ...) -> None: ...

class CaptureChargeRequest(_message.Message):
    __slots__ = ("caller", "charge_id", "amount", "idempotency")
    CALLER_FIELD_NUMBER: _ClassVar[int]
    CHARGE_ID_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    charge_id: str
    amount: int
    idempotency: _common_pb2.Idempotency
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., charge_id: _Optional[str] = ..., amount: _Optional[int] = ..., idempotency: _Optional[_Union[_common_pb2.Idempotency, _Mapping]] = ...) -> None: ...

class CaptureChargeResponse(_message.Message):
    __slots__ = ("charge", "object_json")
    CHARGE_FIELD_NUMBER: _ClassVar[int]
    OBJECT_JSON_FIELD_NUMBER: _ClassVar[int]
    charge: _charge_pb2.Charge
    object_json: str
    def __init__(self, charge: _Optional[_Union[_charge_pb2.Charge, _Mapping]] = ..., object_json: _Optional[str] = ...) -> None: ...

class RefundChargeRequest(_message.Message):
    __slots__ = ("caller", "charge_id", "amount", "reason", "idempotency")
    CALLER_FIELD_NUMBER: _ClassVar[int]
    CHARGE_ID_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    charge_id: str
    amount: int
    reason: str
    idempotency: _common_pb2.Idempotency
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., charge_id: _Optional[str] = ..., amount: _Optional[int] = ..., reason: _Optional[str] = ..., idempotency: _Optional[_Union[_common_pb2.Idempotency, _Mapping]] = ...) -> None: ...

class RefundChargeResponse(_message.Message):
    __slots__ = ("refund", "charge")
    REFUND_FIELD_NUMBER: _ClassVar[int]
    CHARGE_FIELD_NUMBER: _ClassVar[int]
    refund: _charge_pb2.Refund
    charge: _charge_pb2.Charge
    def __init__(self, refund: _Optional[_Union[_charge_pb2.Refund, _Mapping]] = ..., charge: _Optional[_Union[_charge_pb2.Charge, _Mapping]] = ...) -> None: ...

class VoidChargeRequest(_message.Message):
    __slots__ = ("caller", "charge_id", "idempotency")
    CALLER_FIELD_NUMBER: _ClassVar[int]
    CHARGE_ID_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    charge_id: str
    idempotency: _common_pb2.Idempotency
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., charge_id: _Optional[str] = ..., idempotency: _Optional[_Union[_common_pb2.Idempotency, _Mapping]] = ...) -> None: ...

class VoidChargeResponse(_message.Message):
    __slots__ = ("charge",)
    CHARGE_FIELD_NUMBER: _ClassVar[int]
    charge: _charge_pb2.Charge
    def __init__(self, charge: _Optional[_Union[_charge_pb2.Charge, _Mapping]] = ...) -> None: ...

class DisputeChargeRequest(_message.Message):
    __slots__ = ("caller", "charge_id", "idempotency")
    CALLER_FIELD_NUMBER: _ClassVar[int]
    CHARGE_ID_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    charge_id: str
    idempotency: _common_pb2.Idempotency
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., charge_id: _Optional[str] = ..., idempotency: _Optional[_Union[_common_pb2.Idempotency, _Mapping]] = ...) -> None: ...

class DisputeChargeResponse(_message.Message):
    __slots__ = ("dispute",)
    DISPUTE_FIELD_NUMBER: _ClassVar[int]
    dispute: _charge_pb2.Dispute
    def __init__(self, dispute: _Optional[_Union[_charge_pb2.Dispute, _Mapping]] = ...) -> None: ...

class CloseDisputeRequest(_message.Message):
    __slots__ = ("caller", "dispute_id", "outcome", "idempotency")
    CALLER_FIELD_NUMBER: _ClassVar[int]
    DISPUTE_ID_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    dispute_id: str
    outcome: str
    idempotency: _common_pb2.Idempotency
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., dispute_id: _Optional[str] = ..., outcome: _Optional[str] = ..., idempotency: _Optional[_Union[_common_pb2.Idempotency, _Mapping]] = ...) -> None: ...

class CloseDisputeResponse(_message.Message):
    __slots__ = ("dispute",)
    DISPUTE_FIELD_NUMBER: _ClassVar[int]
    dispute: _charge_pb2.Dispute
    def __init__(self, dispute: _Optional[_Union[_charge_pb2.Dispute, _Mapping]] = ...) -> None: ...

class DailyVolumeRequest(_message.Message):
    __slots__ = ("caller", "days")
    CALLER_FIELD_NUMBER: _ClassVar[int]
    DAYS_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    days: int
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., days: _Optional[int] = ...) -> None: ...

class DayVolume(_message.Message):
    __slots__ = ("day", "currency", "amount", "count")
    DAY_FIELD_NUMBER: _ClassVar[int]
    CURRENCY_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    day: int
    currency: str
    amount: int
    count: int
    def __init__(self, day: _Optional[int] = ..., currency: _Optional[str] = ..., amount: _Optional[int] = ..., count: _Optional[int] = ...) -> None: ...

class DailyVolumeResponse(_message.Message):
    __slots__ = ("days", "first_day", "day_count")
    DAYS_FIELD_NUMBER: _ClassVar[int]
    FIRST_DAY_FIELD_NUMBER: _ClassVar[int]
    DAY_COUNT_FIELD_NUMBER: _ClassVar[int]
    days: _containers.RepeatedCompositeFieldContainer[DayVolume]
    first_day: int
    day_count: int
    def __init__(self, days: _Optional[_Iterable[_Union[DayVolume, _Mapping]]] = ..., first_day: _Optional[int] = ..., day_count: _Optional[int] = ...) -> None: ...
