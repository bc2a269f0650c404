from connect.v1 import cli_session_pb2 as _cli_session_pb2
from connect.v1 import common_pb2 as _common_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class CreateCliSessionRequest(_message.Message):
    __slots__ = ("caller", "device_name", "idempotency")
    CALLER_FIELD_NUMBER: _ClassVar[int]
    DEVICE_NAME_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    device_name: str
    idempotency: _common_pb2.Idempotency
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., device_name: _Optional[str] = ..., idempotency: _Optional[_Union[_common_pb2.Idempotency, _Mapping]] = ...) -> None: ...

class CreateCliSessionResponse(_message.Message):
    __slots__ = ("cli_session",)
    CLI_SESSION_FIELD_NUMBER: _ClassVar[int]
    cli_session: _cli_session_pb2.CliSession
    def __init__(self, cli_session: _Optional[_Union[_cli_session_pb2.CliSession, _Mapping]] = ...) -> None: ...

class CloseCliSessionRequest(_message.Message):
    __slots__ = ("caller", "session_id", "idempotency")
    CALLER_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    session_id: str
    idempotency: _common_pb2.Idempotency
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., session_id: _Optional[str] = ..., idempotency: _Optional[_Union[_common_pb2.Idempotency, _Mapping]] = ...) -> None: ...

class CloseCliSessionResponse(_message.Message):
    __slots__ = ("cli_session",)
    CLI_SESSION_FIELD_NUMBER: _ClassVar[int]
    cli_session: _cli_session_pb2.CliSession
    def __init__(self, cli_session: _Optional[_Union[_cli_session_pb2.CliSession, _Mapping]] = ...) -> None: ...

class StreamCliEventsRequest(_message.Message):
    __slots__ = ("caller", "session_id", "last_event_id", "types")
    CALLER_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    LAST_EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    TYPES_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    session_id: str
    last_event_id: str
    types: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., session_id: _Optional[str] = ..., last_event_id: _Optional[str] = ..., types: _Optional[_Iterable[str]] = ...) -> None: ...

class StreamCliEventsResponse(_message.Message):
    __slots__ = ("event",)
    EVENT_FIELD_NUMBER: _ClassVar[int]
    event: _cli_session_pb2.CliEvent
    def __init__(self, event: _Optional[_Union[_cli_session_pb2.CliEvent, _Mapping]] = ...) -> None: ...

class RecordCliResponseRequest(_message.Message):
    __slots__ = ("caller", "session_id", "event_id", "status_code", "error", "latency_ms", "idempotency")
    CALLER_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_CODE_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    LATENCY_MS_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    session_id: str
    event_id: str
    status_code: int
    error: str
    latency_ms: int
    idempotency: _common_pb2.Idempotency
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., session_id: _Optional[str] = ..., event_id: _Optional[str] = ..., status_code: _Optional[int] = ..., error: _Optional[str] = ..., latency_ms: _Optional[int] = ..., idempotency: _Optional[_Union[_common_pb2.Idempotency, _Mapping]] = ...) -> None: ...

class RecordCliResponseResponse(_message.Message):
    __slots__ = ("cli_response",)
    CLI_RESPONSE_FIELD_NUMBER: _ClassVar[int]
    cli_response: _cli_session_pb2.CliResponse
    def __init__(self, cli_response: _Optional[_Union[_cli_session_pb2.CliResponse, _Mapping]] = ...) -> None: ...

class ListCliResponsesRequest(_message.Message):
    __slots__ = ("caller", "session_id", "limit", "starting_after")
    CALLER_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    STARTING_AFTER_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    session_id: str
    limit: int
    starting_after: str
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., session_id: _Optional[str] = ..., limit: _Optional[int] = ..., starting_after: _Optional[str] = ...) -> None: ...

class ListCliResponsesResponse(_message.Message):
    __slots__ = ("cli_responses", "has_more")
    CLI_RESPONSES_FIELD_NUMBER: _ClassVar[int]
    HAS_MORE_FIELD_NUMBER: _ClassVar[int]
    cli_responses: _containers.RepeatedCompositeFieldContainer[_cli_session_pb2.CliResponse]
    has_more: bool
    def __init__(self, cli_responses: _Optional[_Iterable[_Union[_cli_session_pb2.CliResponse, _Mapping]]] = ..., has_more: _Optional[bool] = ...) -> None: ...
