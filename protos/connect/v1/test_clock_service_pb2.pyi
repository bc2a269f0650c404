from connect.v1 import common_pb2 as _common_pb2
from connect.v1 import test_clock_pb2 as _test_clock_pb2
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class GetTestClockRequest(_message.Message):
    __slots__ = ("caller",)
    CALLER_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ...) -> None: ...

class GetTestClockResponse(_message.Message):
    __slots__ = ("clock",)
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    clock: _test_clock_pb2.TestClock
    def __init__(self, clock: _Optional[_Union[_test_clock_pb2.TestClock, _Mapping]] = ...) -> None: ...

class AdvanceTestClockRequest(_message.Message):
    __slots__ = ("caller", "to", "idempotency")
    CALLER_FIELD_NUMBER: _ClassVar[int]
    TO_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    to: int
    idempotency: _common_pb2.Idempotency
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., to: _Optional[int] = ..., idempotency: _Optional[_Union[_common_pb2.Idempotency, _Mapping]] = ...) -> None: ...

class AdvanceTestClockResponse(_message.Message):
    __slots__ = ("clock",)
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    clock: _test_clock_pb2.TestClock
    def __init__(self, clock: _Optional[_Union[_test_clock_pb2.TestClock, _Mapping]] = ...) -> None: ...
