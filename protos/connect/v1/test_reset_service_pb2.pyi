from connect.v1 import common_pb2 as _common_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ResetTestDataRequest(_message.Message):
    __slots__ = ("caller", "idempotency")
    CALLER_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    idempotency: _common_pb2.Idempotency
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., idempotency: _Optional[_Union[_common_pb2.Idempotency, _Mapping]] = ...) -> None: ...

class DeletedCount(_message.Message):
    __slots__ = ("object", "count")
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    object: str
    count: int
    def __init__(self, object: _Optional[str] = ..., count: _Optional[int] = ...) -> None: ...

class ResetTestDataResponse(_message.Message):
    __slots__ = ("deleted",)
    DELETED_FIELD_NUMBER: _ClassVar[int]
    deleted: _containers.RepeatedCompositeFieldContainer[DeletedCount]
    def __init__(self, deleted: _Optional[_Iterable[_Union[DeletedCount, _Mapping]]] = ...) -> None: ...
