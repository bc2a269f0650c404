from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Optional as _Optional

DESCRIPTOR: _descriptor.FileDescriptor

class Subscription(_message.Message):
    __slots__ = ("id", "object_json")
    ID_FIELD_NUMBER: _ClassVar[int]
    OBJECT_JSON_FIELD_NUMBER: _ClassVar[int]
    id: str
    object_json: str
    def __init__(self, id: _Optional[str] = ..., object_json: _Optional[str] = ...) -> None: ...

class SubscriptionItem(_message.Message):
    __slots__ = ("id", "object_json")
    ID_FIELD_NUMBER: _ClassVar[int]
    OBJECT_JSON_FIELD_NUMBER: _ClassVar[int]
    id: str
    object_json: str
    def __init__(self, id: _Optional[str] = ..., object_json: _Optional[str] = ...) -> None: ...

class Invoice(_message.Message):
    __slots__ = ("id", "object_json")
    ID_FIELD_NUMBER: _ClassVar[int]
    OBJECT_JSON_FIELD_NUMBER: _ClassVar[int]
    id: str
    object_json: str
    def __init__(self, id: _Optional[str] = ..., object_json: _Optional[str] = ...) -> None: ...

class SubscriptionPreview(_message.Message):
    __slots__ = ("object_json",)
    OBJECT_JSON_FIELD_NUMBER: _ClassVar[int]
    object_json: str
    def __init__(self, object_json: _Optional[str] = ...) -> None: ...
