from connect.v1 import common_pb2 as _common_pb2
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class CheckIdempotencyKeyRequest(_message.Message):
    __slots__ = ("scope", "idempotency")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_FIELD_NUMBER: _ClassVar[int]
    scope: str
    idempotency: _common_pb2.Idempotency
    def __init__(self, scope: _Optional[str] = ..., idempotency: _Optional[_Union[_common_pb2.Idempotency, _Mapping]] = ...) -> None: ...

class CheckIdempotencyKeyResponse(_message.Message):
    __slots__ = ("stored",)
    STORED_FIELD_NUMBER: _ClassVar[int]
    stored: bool
    def __init__(self, stored: _Optional[bool] = ...) -> None: ...
