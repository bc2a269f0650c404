from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Optional as _Optional

DESCRIPTOR: _descriptor.FileDescriptor

class CliSession(_message.Message):
    __slots__ = ("id", "device_name", "secret", "created", "expires_at")
    ID_FIELD_NUMBER: _ClassVar[int]
    DEVICE_NAME_FIELD_NUMBER: _ClassVar[int]
    SECRET_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    id: str
    device_name: str
    secret: str
    created: int
    expires_at: int
    def __init__(self, id: _Optional[str] = ..., device_name: _Optional[str] = ..., secret: _Optional[str] = ..., created: _Optional[int] = ..., expires_at: _Optional[int] = ...) -> None: ...

class CliEvent(_message.Message):
    __slots__ = ("id", "type", "body", "signature")
    ID_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    BODY_FIELD_NUMBER: _ClassVar[int]
    SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    id: str
    type: str
    body: str
    signature: str
    def __init__(self, id: _Optional[str] = ..., type: _Optional[str] = ..., body: _Optional[str] = ..., signature: _Optional[str] = ...) -> None: ...

class CliResponse(_message.Message):
    __slots__ = ("id", "session_id", "event_id", "event_type", "status_code", "succeeded", "error", "latency_ms", "created")
    ID_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    EVENT_TYPE_FIELD_NUMBER: _ClassVar[int]
    STATUS_CODE_FIELD_NUMBER: _ClassVar[int]
    SUCCEEDED_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    LATENCY_MS_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    id: str
    session_id: str
    event_id: str
    event_type: str
    status_code: int
    succeeded: bool
    error: str
    latency_ms: int
    created: int
    def __init__(self, id: _Optional[str] = ..., session_id: _Optional[str] = ..., event_id: _Optional[str] = ..., event_type: _Optional[str] = ..., status_code: _Optional[int] = ..., succeeded: _Optional[bool] = ..., error: _Optional[str] = ..., latency_ms: _Optional[int] = ..., created: _Optional[int] = ...) -> None: ...
