from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class WebhookEndpointStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    WEBHOOK_ENDPOINT_STATUS_UNSPECIFIED: _ClassVar[WebhookEndpointStatus]
    WEBHOOK_ENDPOINT_STATUS_ENABLED: _ClassVar[WebhookEndpointStatus]
    WEBHOOK_ENDPOINT_STATUS_DISABLED: _ClassVar[WebhookEndpointStatus]
    WEBHOOK_ENDPOINT_STATUS_FAILING: _ClassVar[WebhookEndpointStatus]

class WebhookDeliveryStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    WEBHOOK_DELIVERY_STATUS_UNSPECIFIED: _ClassVar[WebhookDeliveryStatus]
    WEBHOOK_DELIVERY_STATUS_PENDING: _ClassVar[WebhookDeliveryStatus]
    WEBHOOK_DELIVERY_STATUS_SUCCEEDED: _ClassVar[WebhookDeliveryStatus]
    WEBHOOK_DELIVERY_STATUS_FAILED: _ClassVar[WebhookDeliveryStatus]
WEBHOOK_ENDPOINT_STATUS_UNSPECIFIED: WebhookEndpointStatus
WEBHOOK_ENDPOINT_STATUS_ENABLED: WebhookEndpointStatus
WEBHOOK_ENDPOINT_STATUS_DISABLED: WebhookEndpointStatus
WEBHOOK_ENDPOINT_STATUS_FAILING: WebhookEndpointStatus
WEBHOOK_DELIVERY_STATUS_UNSPECIFIED: WebhookDeliveryStatus
WEBHOOK_DELIVERY_STATUS_PENDING: WebhookDeliveryStatus
WEBHOOK_DELIVERY_STATUS_SUCCEEDED: WebhookDeliveryStatus
WEBHOOK_DELIVERY_STATUS_FAILED: WebhookDeliveryStatus

class WebhookEndpoint(_message.Message):
    __slots__ = ("id", "url", "events", "description", "status", "created", "livemode", "secret", "object_json")
    ID_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    LIVEMODE_FIELD_NUMBER: _ClassVar[int]
    SECRET_FIELD_NUMBER: _ClassVar[int]
    OBJECT_JSON_FIELD_NUMBER: _ClassVar[int]
    id: str
    url: str
    events: _containers.RepeatedScalarFieldContainer[str]
    description: str
    status: WebhookEndpointStatus
    created: int
    livemode: bool
    secret: str
    object_json: str
    def __init__(self, id: _Optional[str] = ..., url: _Optional[str] = ..., events: _Optional[_Iterable[str]] = ..., description: _Optional[str] = ..., status: _Optional[_Union[WebhookEndpointStatus, str]] = ..., created: _Optional[int] = ..., livemode: _Optional[bool] = ..., secret: _Optional[str] = ..., object_json: _Optional[str] = ...) -> None: ...

class WebhookAttempt(_message.Message):
    __slots__ = ("attempted_at", "status_code", "latency_ms", "error", "succeeded")
    ATTEMPTED_AT_FIELD_NUMBER: _ClassVar[int]
    STATUS_CODE_FIELD_NUMBER: _ClassVar[int]
    LATENCY_MS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    SUCCEEDED_FIELD_NUMBER: _ClassVar[int]
    attempted_at: int
    status_code: int
    latency_ms: int
    error: str
    succeeded: bool
    def __init__(self, attempted_at: _Optional[int] = ..., status_code: _Optional[int] = ..., latency_ms: _Optional[int] = ..., error: _Optional[str] = ..., succeeded: _Optional[bool] = ...) -> None: ...

class WebhookDelivery(_message.Message):
    __slots__ = ("id", "endpoint_id", "event_id", "event_type", "status", "attempt_count", "next_attempt_at", "created", "attempts", "object_json")
    ID_FIELD_NUMBER: _ClassVar[int]
    ENDPOINT_ID_FIELD_NUMBER: _ClassVar[int]
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    EVENT_TYPE_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    ATTEMPT_COUNT_FIELD_NUMBER: _ClassVar[int]
    NEXT_ATTEMPT_AT_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    ATTEMPTS_FIELD_NUMBER: _ClassVar[int]
    OBJECT_JSON_FIELD_NUMBER: _ClassVar[int]
    id: str
    endpoint_id: str
    event_id: str
    event_type: str
    status: WebhookDeliveryStatus
    attempt_count: int
    next_attempt_at: int
    created: int
    attempts: _containers.RepeatedCompositeFieldContainer[WebhookAttempt]
    object_json: str
    def __init__(self, id: _Optional[str] = ..., endpoint_id: _Optional[str] = ..., event_id: _Optional[str] = ..., event_type: _Optional[str] = ..., status: _Optional[_Union[WebhookDeliveryStatus, str]] = ..., attempt_count: _Optional[int] = ..., next_attempt_at: _Optional[int] = ..., created: _Optional[int] = ..., attempts: _Optional[_Iterable[_Union[WebhookAttempt, _Mapping]]] = ..., object_json: _Optional[str] = ...) -> None: ...

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
