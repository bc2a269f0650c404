from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class PayoutSchedule(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PAYOUT_SCHEDULE_UNSPECIFIED: _ClassVar[PayoutSchedule]
    PAYOUT_SCHEDULE_DAILY: _ClassVar[PayoutSchedule]
    PAYOUT_SCHEDULE_WEEKLY: _ClassVar[PayoutSchedule]
    PAYOUT_SCHEDULE_MONTHLY: _ClassVar[PayoutSchedule]
PAYOUT_SCHEDULE_UNSPECIFIED: PayoutSchedule
PAYOUT_SCHEDULE_DAILY: PayoutSchedule
PAYOUT_SCHEDULE_WEEKLY: PayoutSchedule
PAYOUT_SCHEDULE_MONTHLY: PayoutSchedule

class Merchant(_message.Message):
    __slots__ = ("id", "email", "business_name", "logo_url", "brand_color", "support_email", "payout_schedule", "created", "payout_account_last4", "settlement_currency", "token_version", "object_json")
    ID_FIELD_NUMBER: _ClassVar[int]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    BUSINESS_NAME_FIELD_NUMBER: _ClassVar[int]
    LOGO_URL_FIELD_NUMBER: _ClassVar[int]
    BRAND_COLOR_FIELD_NUMBER: _ClassVar[int]
    SUPPORT_EMAIL_FIELD_NUMBER: _ClassVar[int]
    PAYOUT_SCHEDULE_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    PAYOUT_ACCOUNT_LAST4_FIELD_NUMBER: _ClassVar[int]
    SETTLEMENT_CURRENCY_FIELD_NUMBER: _ClassVar[int]
    TOKEN_VERSION_FIELD_NUMBER: _ClassVar[int]
    OBJECT_JSON_FIELD_NUMBER: _ClassVar[int]
    id: str
    email: str
    business_name: str
    logo_url: str
    brand_color: str
    support_email: str
    payout_schedule: PayoutSchedule
    created: int
    payout_account_last4: str
    settlement_currency: str
    token_version: int
    object_json: str
    def __init__(self, id: _Optional[str] = ..., email: _Optional[str] = ..., business_name: _Optional[str] = ..., logo_url: _Optional[str] = ..., brand_color: _Optional[str] = ..., support_email: _Optional[str] = ..., payout_schedule: _Optional[_Union[PayoutSchedule, str]] = ..., created: _Optional[int] = ..., payout_account_last4: _Optional[str] = ..., settlement_currency: _Optional[str] = ..., token_version: _Optional[int] = ..., object_json: _Optional[str] = ...) -> None: ...
