from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Optional as _Optional

DESCRIPTOR: _descriptor.FileDescriptor

class PortalSession(_message.Message):
    __slots__ = ("id", "object_json")
    ID_FIELD_NUMBER: _ClassVar[int]
    OBJECT_JSON_FIELD_NUMBER: _ClassVar[int]
    id: str
    object_json: str
    def __init__(self, id: _Optional[str] = ..., object_json: _Optional[str] = ...) -> None: ...

class PortalPage(_message.Message):
    __slots__ = ("view_json",)
    VIEW_JSON_FIELD_NUMBER: _ClassVar[int]
    view_json: str
    def __init__(self, view_json: _Optional[str] = ...) -> None: ...
