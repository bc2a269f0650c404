from connect.v1 import common_pb2 as _common_pb2
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ApiKeyKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    API_KEY_KIND_UNSPECIFIED: _ClassVar[ApiKeyKind]
    API_KEY_KIND_SECRET: _ClassVar[ApiKeyKind]
    API_KEY_KIND_PUBLISHABLE: _ClassVar[ApiKeyKind]
API_KEY_KIND_UNSPECIFIED: ApiKeyKind
API_KEY_KIND_SECRET: ApiKeyKind
API_KEY_KIND_PUBLISHABLE: ApiKeyKind

class ApiKey(_message.Message):
    __slots__ = ("id", "name", "publishable_key", "secret_key", "secret_key_last4", "environment", "created", "revoked", "revoked_at", "object_json")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PUBLISHABLE_KEY_FIELD_NUMBER: _ClassVar[int]
    SECRET_KEY_FIELD_NUMBER: _ClassVar[int]
    SECRET_KEY_LAST4_FIELD_NUMBER: _ClassVar[int]
    ENVIRONMENT_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    REVOKED_FIELD_NUMBER: _ClassVar[int]
    REVOKED_AT_FIELD_NUMBER: _ClassVar[int]
    OBJECT_JSON_FIELD_NUMBER: _ClassVar[int]
    id: str
    name: str
    publishable_key: str
    secret_key: str
    secret_key_last4: str
    environment: _common_pb2.Environment
    created: int
    revoked: bool
    revoked_at: int
    object_json: str
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., publishable_key: _Optional[str] = ..., secret_key: _Optional[str] = ..., secret_key_last4: _Optional[str] = ..., environment: _Optional[_Union[_common_pb2.Environment, str]] = ..., created: _Optional[int] = ..., revoked: _Optional[bool] = ..., revoked_at: _Optional[int] = ..., object_json: _Optional[str] = ...) -> None: ...
