from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Optional as _Optional

DESCRIPTOR: _descriptor.FileDescriptor

class TaxRate(_message.Message):
    __slots__ = ("id", "object_json")
    ID_FIELD_NUMBER: _ClassVar[int]
    OBJECT_JSON_FIELD_NUMBER: _ClassVar[int]
    id: str
    object_json: str
    def __init__(self, id: _Optional[str] = ..., object_json: _Optional[str] = ...) -> None: ...

class Plan(_message.Message):
    __slots__ = ("id", "object_json")
    ID_FIELD_NUMBER: _ClassVar[int]
    OBJECT_JSON_FIELD_NUMBER: _ClassVar[int]
    id: str
    object_json: str
    def __init__(self, id: _Optional[str] = ..., object_json: _Optional[str] = ...) -> None: ...

class Price(_message.Message):
    __slots__ = ("id", "object_json")
    ID_FIELD_NUMBER: _ClassVar[int]
    OBJECT_JSON_FIELD_NUMBER: _ClassVar[int]
    id: str
    object_json: str
    def __init__(self, id: _Optional[str] = ..., object_json: _Optional[str] = ...) -> None: ...
