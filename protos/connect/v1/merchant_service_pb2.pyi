from connect.v1 import common_pb2 as _common_pb2
from connect.v1 import merchant_pb2 as _merchant_pb2
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class CreateMerchantRequest(_message.Message):
    __slots__ = ("email", "password", "business_name", "idempotency", "client_address")
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    PASSWORD_FIELD_NUMBER: _ClassVar[int]
    BUSINESS_NAME_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_FIELD_NUMBER: _ClassVar[int]
    CLIENT_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    email: str
    password: str
    business_name: str
    idempotency: _common_pb2.Idempotency
    client_address: str
    def __init__(self, email: _Optional[str] = ..., password: _Optional[str] = ..., business_name: _Optional[str] = ..., idempotency: _Optional[_Union[_common_pb2.Idempotency, _Mapping]] = ..., client_address: _Optional[str] = ...) -> None: ...

class CreateMerchantResponse(_message.Message):
    __slots__ = ("merchant",)
    MERCHANT_FIELD_NUMBER: _ClassVar[int]
    merchant: _merchant_pb2.Merchant
    def __init__(self, merchant: _Optional[_Union[_merchant_pb2.Merchant, _Mapping]] = ...) -> None: ...

class IssueTokenRequest(_message.Message):
    __slots__ = ("email", "password", "client_address")
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    PASSWORD_FIELD_NUMBER: _ClassVar[int]
    CLIENT_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    email: str
    password: str
    client_address: str
    def __init__(self, email: _Optional[str] = ..., password: _Optional[str] = ..., client_address: _Optional[str] = ...) -> None: ...

class IssueTokenResponse(_message.Message):
    __slots__ = ("access_token", "token_type", "expires_in")
    ACCESS_TOKEN_FIELD_NUMBER: _ClassVar[int]
    TOKEN_TYPE_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_IN_FIELD_NUMBER: _ClassVar[int]
    access_token: str
    token_type: str
    expires_in: int
    def __init__(self, access_token: _Optional[str] = ..., token_type: _Optional[str] = ..., expires_in: _Optional[int] = ...) -> None: ...

class GetMerchantRequest(_message.Message):
    __slots__ = ("merchant_id",)
    MERCHANT_ID_FIELD_NUMBER: _ClassVar[int]
    merchant_id: str
    def __init__(self, merchant_id: _Optional[str] = ...) -> None: ...

class GetMerchantResponse(_message.Message):
    __slots__ = ("merchant",)
    MERCHANT_FIELD_NUMBER: _ClassVar[int]
    merchant: _merchant_pb2.Merchant
    def __init__(self, merchant: _Optional[_Union[_merchant_pb2.Merchant, _Mapping]] = ...) -> None: ...

class UpdateMerchantRequest(_message.Message):
    __slots__ = ("merchant_id", "business_name", "logo_url", "brand_color", "support_email", "payout_schedule", "payout_account_number", "settlement_currency", "current_password")
    MERCHANT_ID_FIELD_NUMBER: _ClassVar[int]
    BUSINESS_NAME_FIELD_NUMBER: _ClassVar[int]
    LOGO_URL_FIELD_NUMBER: _ClassVar[int]
    BRAND_COLOR_FIELD_NUMBER: _ClassVar[int]
    SUPPORT_EMAIL_FIELD_NUMBER: _ClassVar[int]
    PAYOUT_SCHEDULE_FIELD_NUMBER: _ClassVar[int]
    PAYOUT_ACCOUNT_NUMBER_FIELD_NUMBER: _ClassVar[int]
    SETTLEMENT_CURRENCY_FIELD_NUMBER: _ClassVar[int]
    CURRENT_PASSWORD_FIELD_NUMBER: _ClassVar[int]
    merchant_id: str
    business_name: str
    logo_url: str
    brand_color: str
    support_email: str
    payout_schedule: _merchant_pb2.PayoutSchedule
    payout_account_number: str
    settlement_currency: str
    current_password: str
    def __init__(self, merchant_id: _Optional[str] = ..., business_name: _Optional[str] = ..., logo_url: _Optional[str] = ..., brand_color: _Optional[str] = ..., support_email: _Optional[str] = ..., payout_schedule: _Optional[_Union[_merchant_pb2.PayoutSchedule, str]] = ..., payout_account_number: _Optional[str] = ..., settlement_currency: _Optional[str] = ..., current_password: _Optional[str] = ...) -> None: ...

class UpdateMerchantResponse(_message.Message):
    __slots__ = ("merchant",)
    MERCHANT_FIELD_NUMBER: _ClassVar[int]
    merchant: _merchant_pb2.Merchant
    def __init__(self, merchant: _Optional[_Union[_merchant_pb2.Merchant, _Mapping]] = ...) -> None: ...

class ChangePasswordRequest(_message.Message):
    __slots__ = ("merchant_id", "current_password", "new_password")
    MERCHANT_ID_FIELD_NUMBER: _ClassVar[int]
    CURRENT_PASSWORD_FIELD_NUMBER: _ClassVar[int]
    NEW_PASSWORD_FIELD_NUMBER: _ClassVar[int]
    merchant_id: str
    current_password: str
    new_password: str
    def __init__(self, merchant_id: _Optional[str] = ..., current_password: _Optional[str] = ..., new_password: _Optional[str] = ...) -> None: ...

class ChangePasswordResponse(_message.Message):
    __slots__ = ("merchant",)
    MERCHANT_FIELD_NUMBER: _ClassVar[int]
    merchant: _merchant_pb2.Merchant
    def __init__(self, merchant: _Optional[_Union[_merchant_pb2.Merchant, _Mapping]] = ...) -> None: ...
