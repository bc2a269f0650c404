from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Environment(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ENVIRONMENT_UNSPECIFIED: _ClassVar[Environment]
    ENVIRONMENT_LIVE: _ClassVar[Environment]
    ENVIRONMENT_TEST: _ClassVar[Environment]
ENVIRONMENT_UNSPECIFIED: Environment
ENVIRONMENT_LIVE: Environment
ENVIRONMENT_TEST: Environment

class Caller(_message.Message):
    __slots__ = ("merchant_id", "environment")
    MERCHANT_ID_FIELD_NUMBER: _ClassVar[int]
    ENVIRONMENT_FIELD_NUMBER: _ClassVar[int]
    merchant_id: str
    environment: Environment
    def __init__(self, merchant_id: _Optional[str] = ..., environment: _Optional[_Union[Environment, str]] = ...) -> None: ...

class Idempotency(_message.Message):
    __slots__ = ("key", "fingerprint")
    KEY_FIELD_NUMBER: _ClassVar[int]
    FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    key: str
    fingerprint: str
    def __init__(self, key: _Optional[str] = ..., fingerprint: _Optional[str] = ...) -> None: ...
