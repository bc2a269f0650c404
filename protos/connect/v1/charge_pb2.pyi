from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ChargeStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CHARGE_STATUS_UNSPECIFIED: _ClassVar[ChargeStatus]
    CHARGE_STATUS_PENDING: _ClassVar[ChargeStatus]
    CHARGE_STATUS_AUTHORIZED: _ClassVar[ChargeStatus]
    CHARGE_STATUS_CAPTURED: _ClassVar[ChargeStatus]
    CHARGE_STATUS_FAILED: _ClassVar[ChargeStatus]
    CHARGE_STATUS_VOIDED: _ClassVar[ChargeStatus]
    CHARGE_STATUS_REFUNDED: _ClassVar[ChargeStatus]
    CHARGE_STATUS_PARTIALLY_REFUNDED: _ClassVar[ChargeStatus]
    CHARGE_STATUS_EXPIRED: _ClassVar[ChargeStatus]
    CHARGE_STATUS_DISPUTED: _ClassVar[ChargeStatus]

class PaymentMethodType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PAYMENT_METHOD_TYPE_UNSPECIFIED: _ClassVar[PaymentMethodType]
    PAYMENT_METHOD_TYPE_CARD: _ClassVar[PaymentMethodType]
    PAYMENT_METHOD_TYPE_PAYPAL: _ClassVar[PaymentMethodType]
CHARGE_STATUS_UNSPECIFIED: ChargeStatus
CHARGE_STATUS_PENDING: ChargeStatus
CHARGE_STATUS_AUTHORIZED: ChargeStatus
CHARGE_STATUS_CAPTURED: ChargeStatus
CHARGE_STATUS_FAILED: ChargeStatus
CHARGE_STATUS_VOIDED: ChargeStatus
CHARGE_STATUS_REFUNDED: ChargeStatus
CHARGE_STATUS_PARTIALLY_REFUNDED: ChargeStatus
CHARGE_STATUS_EXPIRED: ChargeStatus
CHARGE_STATUS_DISPUTED: ChargeStatus
PAYMENT_METHOD_TYPE_UNSPECIFIED: PaymentMethodType
PAYMENT_METHOD_TYPE_CARD: PaymentMethodType
PAYMENT_METHOD_TYPE_PAYPAL: PaymentMethodType

class CardDetails(_message.Message):
    __slots__ = ("brand", "last4", "exp_month", "exp_year", "funding", "country", "fingerprint")
    BRAND_FIELD_NUMBER: _ClassVar[int]
    LAST4_FIELD_NUMBER: _ClassVar[int]
    EXP_MONTH_FIELD_NUMBER: _ClassVar[int]
    EXP_YEAR_FIELD_NUMBER: _ClassVar[int]
    FUNDING_FIELD_NUMBER: _ClassVar[int]
    COUNTRY_FIELD_NUMBER: _ClassVar[int]
    FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    brand: str
    last4: str
    exp_month: int
    exp_year: int
    funding: str
    country: str
    fingerprint: str
    def __init__(self, brand: _Optional[str] = ..., last4: _Optional[str] = ..., exp_month: _Optional[int] = ..., exp_year: _Optional[int] = ..., funding: _Optional[str] = ..., country: _Optional[str] = ..., fingerprint: _Optional[str] = ...) -> None: ...

class PaypalDetails(_message.Message):
    __slots__ = ("email",)
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    email: str
    def __init__(self, email: _Optional[str] = ...) -> None: ...

class Refund(_message.Message):
    __slots__ = ("id", "charge", "amount", "currency", "status", "reason", "created", "object_json")
    ID_FIELD_NUMBER: _ClassVar[int]
    CHARGE_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    CURRENCY_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    OBJECT_JSON_FIELD_NUMBER: _ClassVar[int]
    id: str
    charge: str
    amount: int
    currency: str
    status: str
    reason: str
    created: int
    object_json: str
    def __init__(self, id: _Optional[str] = ..., charge: _Optional[str] = ..., amount: _Optional[int] = ..., currency: _Optional[str] = ..., status: _Optional[str] = ..., reason: _Optional[str] = ..., created: _Optional[int] = ..., object_json: _Optional[str] = ...) -> None: ...

class Dispute(_message.Message):
    __slots__ = ("id", "charge", "amount", "currency", "status", "fee", "created", "object_json")
    ID_FIELD_NUMBER: _ClassVar[int]
    CHARGE_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    CURRENCY_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    FEE_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    OBJECT_JSON_FIELD_NUMBER: _ClassVar[int]
    id: str
    charge: str
    amount: int
    currency: str
    status: str
    fee: int
    created: int
    object_json: str
    def __init__(self, id: _Optional[str] = ..., charge: _Optional[str] = ..., amount: _Optional[int] = ..., currency: _Optional[str] = ..., status: _Optional[str] = ..., fee: _Optional[int] = ..., created: _Optional[int] = ..., object_json: _Optional[str] = ...) -> None: ...

class Charge(_message.Message):
    __slots__ = ("id", "amount", "currency", "status", "description", "metadata", "checkout_url", "return_url", "cancel_url", "expires_at", "created", "livemode", "customer_email", "payment_method", "card", "paypal", "fee", "net", "amount_captured", "amount_refunded", "captured_at", "refunded_at", "disputed_at", "refunds", "transaction_id", "dispute", "failure_code", "object_json")
    class MetadataEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    ID_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    CURRENCY_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    CHECKOUT_URL_FIELD_NUMBER: _ClassVar[int]
    RETURN_URL_FIELD_NUMBER: _ClassVar[int]
    CANCEL_URL_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    LIVEMODE_FIELD_NUMBER: _ClassVar[int]
    CUSTOMER_EMAIL_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_METHOD_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    PAYPAL_FIELD_NUMBER: _ClassVar[int]
    FEE_FIELD_NUMBER: _ClassVar[int]
    NET_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_CAPTURED_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_REFUNDED_FIELD_NUMBER: _ClassVar[int]
    CAPTURED_AT_FIELD_NUMBER: _ClassVar[int]
    REFUNDED_AT_FIELD_NUMBER: _ClassVar[int]
    DISPUTED_AT_FIELD_NUMBER: _ClassVar[int]
    REFUNDS_FIELD_NUMBER: _ClassVar[int]
    TRANSACTION_ID_FIELD_NUMBER: _ClassVar[int]
    DISPUTE_FIELD_NUMBER: _ClassVar[int]
    FAILURE_CODE_FIELD_NUMBER: _ClassVar[int]
    OBJECT_JSON_FIELD_NUMBER: _ClassVar[int]
    id: str
    amount: int
    currency: str
    status: ChargeStatus
    description: str
    metadata: _containers.ScalarMap[str, str]
    checkout_url: str
    return_url: str
    cancel_url: str
    expires_at: int
    created: int
    livemode: bool
    customer_email: str
    payment_method: PaymentMethodType
    card: CardDetails
    paypal: PaypalDetails
    fee: int
    net: int
    amount_captured: int
    amount_refunded: int
    captured_at: int
    refunded_at: int
    disputed_at: int
    refunds: _containers.RepeatedCompositeFieldContainer[Refund]
    transaction_id: str
    dispute: Dispute
    failure_code: str
    object_json: str
    def __init__(self, id: _Optional[str] = ..., amount: _Optional[int] = ..., currency: _Optional[str] = ..., status: _Optional[_Union[ChargeStatus, str]] = ..., description: _Optional[str] = ..., metadata: _Optional[_Mapping[str, str]] = ..., checkout_url: _Optional[str] = ..., return_url: _Optional[str] = ..., cancel_url: _Optional[str] = ..., expires_at: _Optional[int] = ..., created: _Optional[int] = ..., livemode: _Optional[bool] = ..., customer_email: _Optional[str] = ..., payment_method: _Optional[_Union[PaymentMethodType, str]] = ..., card: _Optional[_Union[CardDetails, _Mapping]] = ..., paypal: _Optional[_Union[PaypalDetails, _Mapping]] = ..., fee: _Optional[int] = ..., net: _Optional[int] = ..., amount_captured: _Optional[int] = ..., amount_refunded: _Optional[int] = ..., captured_at: _Optional[int] = ..., refunded_at: _Optional[int] = ..., disputed_at: _Optional[int] = ..., refunds: _Optional[_Iterable[_Union[Refund, _Mapping]]] = ..., transaction_id: _Optional[str] = ..., dispute: _Optional[_Union[Dispute, _Mapping]] = ..., failure_code: _Optional[str] = ..., object_json: _Optional[str] = ...) -> None: ...
