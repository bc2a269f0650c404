from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Optional as _Optional

DESCRIPTOR: _descriptor.FileDescriptor

class WebhookEndpointStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    WEBHOOK_ENDPOINT_STATUS_UNSPECIFIED: _ClassVar[WebhookEndpointStatus]
    WEBHOOK_ENDPOINT_STATUS_ENABLED: _ClassVar[WebhookEndpointStatus]
    WEBHOOK_ENDPOINT_STATUS_DISABLED: _ClassVar[WebhookEndpointStatus]
    WEBHOOK_ENDPOINT_STATUS_FAILING: _ClassVar[WebhookEndpointStatus]
WEBHOOK_ENDPOINT_STATUS_UNSPECIFIED: WebhookEndpointStatus
WEBHOOK_ENDPOINT_STATUS_ENABLED: WebhookEndpointStatus
WEBHOOK_ENDPOINT_STATUS_DISABLED: WebhookEndpointStatus
WEBHOOK_ENDPOINT_STATUS_FAILING: WebhookEndpointStatus

class WebhookEndpoint(_message.Message):
    __slots__ = ("id", "secret", "object_json")
    ID_FIELD_NUMBER: _ClassVar[int]
    SECRET_FIELD_NUMBER: _ClassVar[int]
    OBJECT_JSON_FIELD_NUMBER: _ClassVar[int]
    id: str
    secret: str
    object_json: str
    def __init__(self, id: _Optional[str] = ..., secret: _Optional[str] = ..., object_json: _Optional[str] = ...) -> None: ...

class WebhookDelivery(_message.Message):
    __slots__ = ("id", "object_json")
    ID_FIELD_NUMBER: _ClassVar[int]
    OBJECT_JSON_FIELD_NUMBER: _ClassVar[int]
    id: str
    object_json: str
    def __init__(self, id: _Optional[str] = ..., object_json: _Optional[str] = ...) -> None: ...

class Event(_message.Message):
    __slots__ = ("id", "type", "created", "livemode", "object_json")
    ID_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    LIVEMODE_FIELD_NUMBER: _ClassVar[int]
    OBJECT_JSON_FIELD_NUMBER: _ClassVar[int]
    id: str
    type: str
    created: int
    livemode: bool
    object_json: str
    def __init__(self, id: _Optional[str] = ..., type: _Optional[str] = ..., created: _Optional[int] = ..., livemode: _Optional[bool] = ..., object_json: _Optional[str] = ...) -> None: ...
