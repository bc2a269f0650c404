from connect.v1 import checkout_pb2 as _checkout_pb2
from connect.v1 import common_pb2 as _common_pb2
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class GetCheckoutPageRequest(_message.Message):
    __slots__ = ("charge_id",)
    CHARGE_ID_FIELD_NUMBER: _ClassVar[int]
    charge_id: str
    def __init__(self, charge_id: _Optional[str] = ...) -> None: ...

class GetCheckoutPageResponse(_message.Message):
    __slots__ = ("page",)
    PAGE_FIELD_NUMBER: _ClassVar[int]
    page: _checkout_pb2.CheckoutPage
    def __init__(self, page: _Optional[_Union[_checkout_pb2.CheckoutPage, _Mapping]] = ...) -> None: ...

class CompleteCheckoutRequest(_message.Message):
    __slots__ = ("charge_id", "payment_method", "card", "paypal", "idempotency")
    CHARGE_ID_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_METHOD_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    PAYPAL_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_FIELD_NUMBER: _ClassVar[int]
    charge_id: str
    payment_method: str
    card: _checkout_pb2.CardInput
    paypal: _checkout_pb2.PaypalInput
    idempotency: _common_pb2.Idempotency
    def __init__(self, charge_id: _Optional[str] = ..., payment_method: _Optional[str] = ..., card: _Optional[_Union[_checkout_pb2.CardInput, _Mapping]] = ..., paypal: _Optional[_Union[_checkout_pb2.PaypalInput, _Mapping]] = ..., idempotency: _Optional[_Union[_common_pb2.Idempotency, _Mapping]] = ...) -> None: ...

class CompleteCheckoutResponse(_message.Message):
    __slots__ = ("result",)
    RESULT_FIELD_NUMBER: _ClassVar[int]
    result: _checkout_pb2.CheckoutResult
    def __init__(self, result: _Optional[_Union[_checkout_pb2.CheckoutResult, _Mapping]] = ...) -> None: ...

class CancelCheckoutRequest(_message.Message):
    __slots__ = ("charge_id", "idempotency")
    CHARGE_ID_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_FIELD_NUMBER: _ClassVar[int]
    charge_id: str
    idempotency: _common_pb2.Idempotency
    def __init__(self, charge_id: _Optional[str] = ..., idempotency: _Optional[_Union[_common_pb2.Idempotency, _Mapping]] = ...) -> None: ...

class CancelCheckoutResponse(_message.Message):
    __slots__ = ("redirect_url",)
    REDIRECT_URL_FIELD_NUMBER: _ClassVar[int]
    redirect_url: str
    def __init__(self, redirect_url: _Optional[str] = ...) -> None: ...
