from connect.v1 import charge_pb2 as _charge_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class CheckoutPage(_message.Message):
    __slots__ = ("charge_id", "amount_cents", "currency", "formatted_amount", "description", "merchant_name", "merchant_logo_url", "merchant_brand_color", "merchant_support_email", "return_url", "cancel_url", "available_payment_methods", "status", "valid", "error_message", "expires_at", "test_mode", "metadata", "found")
    class MetadataEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    CHARGE_ID_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_CENTS_FIELD_NUMBER: _ClassVar[int]
    CURRENCY_FIELD_NUMBER: _ClassVar[int]
    FORMATTED_AMOUNT_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    MERCHANT_NAME_FIELD_NUMBER: _ClassVar[int]
    MERCHANT_LOGO_URL_FIELD_NUMBER: _ClassVar[int]
    MERCHANT_BRAND_COLOR_FIELD_NUMBER: _ClassVar[int]
    MERCHANT_SUPPORT_EMAIL_FIELD_NUMBER: _ClassVar[int]
    RETURN_URL_FIELD_NUMBER: _ClassVar[int]
    CANCEL_URL_FIELD_NUMBER: _ClassVar[int]
    AVAILABLE_PAYMENT_METHODS_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    VALID_FIELD_NUMBER: _ClassVar[int]
    ERROR_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    TEST_MODE_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    FOUND_FIELD_NUMBER: _ClassVar[int]
    charge_id: str
    amount_cents: int
    currency: str
    formatted_amount: str
    description: str
    merchant_name: str
    merchant_logo_url: str
    merchant_brand_color: str
    merchant_support_email: str
    return_url: str
    cancel_url: str
    available_payment_methods: _containers.RepeatedScalarFieldContainer[str]
    status: _charge_pb2.ChargeStatus
    valid: bool
    error_message: str
    expires_at: int
    test_mode: bool
    metadata: _containers.ScalarMap[str, str]
    found: bool
    def __init__(self, charge_id: _Optional[str] = ..., amount_cents: _Optional[int] = ..., currency: _Optional[str] = ..., formatted_amount: _Optional[str] = ..., description: _Optional[str] = ..., merchant_name: _Optional[str] = ..., merchant_logo_url: _Optional[str] = ..., merchant_brand_color: _Optional[str] = ..., merchant_support_email: _Optional[str] = ..., return_url: _Optional[str] = ..., cancel_url: _Optional[str] = ..., available_payment_methods: _Optional[_Iterable[str]] = ..., status: _Optional[_Union[_charge_pb2.ChargeStatus, str]] = ..., valid: _Optional[bool] = ..., error_message: _Optional[str] = ..., expires_at: _Optional[int] = ..., test_mode: _Optional[bool] = ..., metadata: _Optional[_Mapping[str, str]] = ..., found: _Optional[bool] = ...) -> None: ...

class CardInput(_message.Message):
    __slots__ = ("card_number", "exp_month", "exp_year", "cvc")
    CARD_NUMBER_FIELD_NUMBER: _ClassVar[int]
    EXP_MONTH_FIELD_NUMBER: _ClassVar[int]
    EXP_YEAR_FIELD_NUMBER: _ClassVar[int]
    CVC_FIELD_NUMBER: _ClassVar[int]
    card_number: str
    exp_month: int
    exp_year: int
    cvc: str
    def __init__(self, card_number: _Optional[str] = ..., exp_month: _Optional[int] = ..., exp_year: _Optional[int] = ..., cvc: _Optional[str] = ...) -> None: ...

class PaypalInput(_message.Message):
    __slots__ = ("email",)
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    email: str
    def __init__(self, email: _Optional[str] = ...) -> None: ...

class CheckoutResult(_message.Message):
    __slots__ = ("success", "charge_id", "status", "redirect_url", "error_code", "error_message", "test_mode")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    CHARGE_ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    REDIRECT_URL_FIELD_NUMBER: _ClassVar[int]
    ERROR_CODE_FIELD_NUMBER: _ClassVar[int]
    ERROR_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    TEST_MODE_FIELD_NUMBER: _ClassVar[int]
    success: bool
    charge_id: str
    status: str
    redirect_url: str
    error_code: str
    error_message: str
    test_mode: bool
    def __init__(self, success: _Optional[bool] = ..., charge_id: _Optional[str] = ..., status: _Optional[str] = ..., redirect_url: _Optional[str] = ..., error_code: _Optional[str] = ..., error_message: _Optional[str] = ..., test_mode: _Optional[bool] = ...) -> None: ...
