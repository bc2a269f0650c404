from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Optional as _Optional

DESCRIPTOR: _descriptor.FileDescriptor

class SubscriptionStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SUBSCRIPTION_STATUS_UNSPECIFIED: _ClassVar[SubscriptionStatus]
    SUBSCRIPTION_STATUS_TRIALING: _ClassVar[SubscriptionStatus]
    SUBSCRIPTION_STATUS_ACTIVE: _ClassVar[SubscriptionStatus]
    SUBSCRIPTION_STATUS_PAST_DUE: _ClassVar[SubscriptionStatus]
    SUBSCRIPTION_STATUS_UNPAID: _ClassVar[SubscriptionStatus]
    SUBSCRIPTION_STATUS_PAUSED: _ClassVar[SubscriptionStatus]
    SUBSCRIPTION_STATUS_CANCELED: _ClassVar[SubscriptionStatus]

class InvoiceStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    INVOICE_STATUS_UNSPECIFIED: _ClassVar[InvoiceStatus]
    INVOICE_STATUS_DRAFT: _ClassVar[InvoiceStatus]
    INVOICE_STATUS_OPEN: _ClassVar[InvoiceStatus]
    INVOICE_STATUS_PAID: _ClassVar[InvoiceStatus]
    INVOICE_STATUS_UNCOLLECTIBLE: _ClassVar[InvoiceStatus]
    INVOICE_STATUS_VOID: _ClassVar[InvoiceStatus]
SUBSCRIPTION_STATUS_UNSPECIFIED: SubscriptionStatus
SUBSCRIPTION_STATUS_TRIALING: SubscriptionStatus
SUBSCRIPTION_STATUS_ACTIVE: SubscriptionStatus
SUBSCRIPTION_STATUS_PAST_DUE: SubscriptionStatus
SUBSCRIPTION_STATUS_UNPAID: SubscriptionStatus
SUBSCRIPTION_STATUS_PAUSED: SubscriptionStatus
SUBSCRIPTION_STATUS_CANCELED: SubscriptionStatus
INVOICE_STATUS_UNSPECIFIED: InvoiceStatus
INVOICE_STATUS_DRAFT: InvoiceStatus
INVOICE_STATUS_OPEN: InvoiceStatus
INVOICE_STATUS_PAID: InvoiceStatus
INVOICE_STATUS_UNCOLLECTIBLE: InvoiceStatus
INVOICE_STATUS_VOID: InvoiceStatus

class Subscription(_message.Message):
    __slots__ = ("id", "object_json")
    ID_FIELD_NUMBER: _ClassVar[int]
    OBJECT_JSON_FIELD_NUMBER: _ClassVar[int]
    id: str
    object_json: str
    def __init__(self, id: _Optional[str] = ..., object_json: _Optional[str] = ...) -> None: ...

class SubscriptionItem(_message.Message):
    __slots__ = ("id", "object_json")
    ID_FIELD_NUMBER: _ClassVar[int]
    OBJECT_JSON_FIELD_NUMBER: _ClassVar[int]
    id: str
    object_json: str
    def __init__(self, id: _Optional[str] = ..., object_json: _Optional[str] = ...) -> None: ...

class Invoice(_message.Message):
    __slots__ = ("id", "object_json")
    ID_FIELD_NUMBER: _ClassVar[int]
    OBJECT_JSON_FIELD_NUMBER: _ClassVar[int]
    id: str
    object_json: str
    def __init__(self, id: _Optional[str] = ..., object_json: _Optional[str] = ...) -> None: ...

class SubscriptionPreview(_message.Message):
    __slots__ = ("object_json",)
    OBJECT_JSON_FIELD_NUMBER: _ClassVar[int]
    object_json: str
    def __init__(self, object_json: _Optional[str] = ...) -> None: ...
