from connect.v1 import common_pb2 as _common_pb2
from connect.v1 import customer_pb2 as _customer_pb2
from connect.v1 import portal_pb2 as _portal_pb2
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class CreatePortalSessionRequest(_message.Message):
    __slots__ = ("caller", "customer_id", "return_url", "idempotency")
    CALLER_FIELD_NUMBER: _ClassVar[int]
    CUSTOMER_ID_FIELD_NUMBER: _ClassVar[int]
    RETURN_URL_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    customer_id: str
    return_url: str
    idempotency: _common_pb2.Idempotency
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., customer_id: _Optional[str] = ..., return_url: _Optional[str] = ..., idempotency: _Optional[_Union[_common_pb2.Idempotency, _Mapping]] = ...) -> None: ...

class CreatePortalSessionResponse(_message.Message):
    __slots__ = ("session",)
    SESSION_FIELD_NUMBER: _ClassVar[int]
    session: _portal_pb2.PortalSession
    def __init__(self, session: _Optional[_Union[_portal_pb2.PortalSession, _Mapping]] = ...) -> None: ...

class ResolvePortalSessionRequest(_message.Message):
    __slots__ = ("token", "subscriptions_after", "subscription_id")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    SUBSCRIPTIONS_AFTER_FIELD_NUMBER: _ClassVar[int]
    SUBSCRIPTION_ID_FIELD_NUMBER: _ClassVar[int]
    token: str
    subscriptions_after: str
    subscription_id: str
    def __init__(self, token: _Optional[str] = ..., subscriptions_after: _Optional[str] = ..., subscription_id: _Optional[str] = ...) -> None: ...

class ResolvePortalSessionResponse(_message.Message):
    __slots__ = ("page",)
    PAGE_FIELD_NUMBER: _ClassVar[int]
    page: _portal_pb2.PortalPage
    def __init__(self, page: _Optional[_Union[_portal_pb2.PortalPage, _Mapping]] = ...) -> None: ...

class GetPortalInvoiceRequest(_message.Message):
    __slots__ = ("token", "invoice_id")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    INVOICE_ID_FIELD_NUMBER: _ClassVar[int]
    token: str
    invoice_id: str
    def __init__(self, token: _Optional[str] = ..., invoice_id: _Optional[str] = ...) -> None: ...

class GetPortalInvoiceResponse(_message.Message):
    __slots__ = ("page",)
    PAGE_FIELD_NUMBER: _ClassVar[int]
    page: _portal_pb2.PortalPage
    def __init__(self, page: _Optional[_Union[_portal_pb2.PortalPage, _Mapping]] = ...) -> None: ...

class UpdatePaymentMethodRequest(_message.Message):
    __slots__ = ("token", "anti_forgery_token", "card", "idempotency")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    ANTI_FORGERY_TOKEN_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_FIELD_NUMBER: _ClassVar[int]
    token: str
    anti_forgery_token: str
    card: _customer_pb2.VaultCardInput
    idempotency: _common_pb2.Idempotency
    def __init__(self, token: _Optional[str] = ..., anti_forgery_token: _Optional[str] = ..., card: _Optional[_Union[_customer_pb2.VaultCardInput, _Mapping]] = ..., idempotency: _Optional[_Union[_common_pb2.Idempotency, _Mapping]] = ...) -> None: ...

class UpdatePaymentMethodResponse(_message.Message):
    __slots__ = ("payment_method",)
    PAYMENT_METHOD_FIELD_NUMBER: _ClassVar[int]
    payment_method: _customer_pb2.PaymentMethod
    def __init__(self, payment_method: _Optional[_Union[_customer_pb2.PaymentMethod, _Mapping]] = ...) -> None: ...

class CancelAtPeriodEndRequest(_message.Message):
    __slots__ = ("token", "anti_forgery_token", "subscription_id")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    ANTI_FORGERY_TOKEN_FIELD_NUMBER: _ClassVar[int]
    SUBSCRIPTION_ID_FIELD_NUMBER: _ClassVar[int]
    token: str
    anti_forgery_token: str
    subscription_id: str
    def __init__(self, token: _Optional[str] = ..., anti_forgery_token: _Optional[str] = ..., subscription_id: _Optional[str] = ...) -> None: ...

class CancelAtPeriodEndResponse(_message.Message):
    __slots__ = ("subscription_json",)
    SUBSCRIPTION_JSON_FIELD_NUMBER: _ClassVar[int]
    subscription_json: str
    def __init__(self, subscription_json: _Optional[str] = ...) -> None: ...
