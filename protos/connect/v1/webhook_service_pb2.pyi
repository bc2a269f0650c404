from connect.v1 import common_pb2 as _common_pb2
from connect.v1 import webhook_pb2 as _webhook_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class CreateWebhookEndpointRequest(_message.Message):
    __slots__ = ("caller", "url", "events", "description", "idempotency")
    CALLER_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    url: str
    events: _containers.RepeatedScalarFieldContainer[str]
    description: str
    idempotency: _common_pb2.Idempotency
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., url: _Optional[str] = ..., events: _Optional[_Iterable[str]] = ..., description: _Optional[str] = ..., idempotency: _Optional[_Union[_common_pb2.Idempotency, _Mapping]] = ...) -> None: ...

class CreateWebhookEndpointResponse(_message.Message):
    __slots__ = ("webhook_endpoint",)
    WEBHOOK_ENDPOINT_FIELD_NUMBER: _ClassVar[int]
    webhook_endpoint: _webhook_pb2.WebhookEndpoint
    def __init__(self, webhook_endpoint: _Optional[_Union[_webhook_pb2.WebhookEndpoint, _Mapping]] = ...) -> None: ...

class ListWebhookEndpointsRequest(_message.Message):
    __slots__ = ("caller",)
    CALLER_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ...) -> None: ...

class ListWebhookEndpointsResponse(_message.Message):
    __slots__ = ("webhook_endpoints",)
    WEBHOOK_ENDPOINTS_FIELD_NUMBER: _ClassVar[int]
    webhook_endpoints: _containers.RepeatedCompositeFieldContainer[_webhook_pb2.WebhookEndpoint]
    def __init__(self, webhook_endpoints: _Optional[_Iterable[_Union[_webhook_pb2.WebhookEndpoint, _Mapping]]] = ...) -> None: ...

class GetWebhookEndpointRequest(_message.Message):
    __slots__ = ("caller", "webhook_endpoint_id")
    CALLER_FIELD_NUMBER: _ClassVar[int]
    WEBHOOK_ENDPOINT_ID_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    webhook_endpoint_id: str
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., webhook_endpoint_id: _Optional[str] = ...) -> None: ...

class GetWebhookEndpointResponse(_message.Message):
    __slots__ = ("webhook_endpoint",)
    WEBHOOK_ENDPOINT_FIELD_NUMBER: _ClassVar[int]
    webhook_endpoint: _webhook_pb2.WebhookEndpoint
    def __init__(self, webhook_endpoint: _Optional[_Union[_webhook_pb2.WebhookEndpoint, _Mapping]] = ...) -> None: ...

class EventTypeList(_message.Message):
    __slots__ = ("types",)
    TYPES_FIELD_NUMBER: _ClassVar[int]
    types: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, types: _Optional[_Iterable[str]] = ...) -> None: ...

class UpdateWebhookEndpointRequest(_message.Message):
    __slots__ = ("caller", "webhook_endpoint_id", "url", "events", "description", "status", "idempotency")
    CALLER_FIELD_NUMBER: _ClassVar[int]
    WEBHOOK_ENDPOINT_ID_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    webhook_endpoint_id: str
    url: str
    events: EventTypeList
    description: str
    status: _webhook_pb2.WebhookEndpointStatus
    idempotency: _common_pb2.Idempotency
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., webhook_endpoint_id: _Optional[str] = ..., url: _Optional[str] = ..., events: _Optional[_Union[EventTypeList, _Mapping]] = ..., description: _Optional[str] = ..., status: _Optional[_Union[_webhook_pb2.WebhookEndpointStatus, str]] = ..., idempotency: _Optional[_Union[_common_pb2.Idempotency, _Mapping]] = ...) -> None: ...

class UpdateWebhookEndpointResponse(_message.Message):
    __slots__ = ("webhook_endpoint",)
    WEBHOOK_ENDPOINT_FIELD_NUMBER: _ClassVar[int]
    webhook_endpoint: _webhook_pb2.WebhookEndpoint
    def __init__(self, webhook_endpoint: _Optional[_Union[_webhook_pb2.WebhookEndpoint, _Mapping]] = ...) -> None: ...

class DeleteWebhookEndpointRequest(_message.Message):
    __slots__ = ("caller", "webhook_endpoint_id", "idempotency")
    CALLER_FIELD_NUMBER: _ClassVar[int]
    WEBHOOK_ENDPOINT_ID_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    webhook_endpoint_id: str
    idempotency: _common_pb2.Idempotency
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., webhook_endpoint_id: _Optional[str] = ..., idempotency: _Optional[_Union[_common_pb2.Idempotency, _Mapping]] = ...) -> None: ...

class DeleteWebhookEndpointResponse(_message.Message):
    __slots__ = ("webhook_endpoint_id",)
    WEBHOOK_ENDPOINT_ID_FIELD_NUMBER: _ClassVar[int]
    webhook_endpoint_id: str
    def __init__(self, webhook_endpoint_id: _Optional[str] = ...) -> None: ...

class ListWebhookDeliveriesRequest(_message.Message):
    __slots__ = ("caller", "webhook_endpoint_id", "limit", "starting_after")
    CALLER_FIELD_NUMBER: _ClassVar[int]
    WEBHOOK_ENDPOINT_ID_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    STARTING_AFTER_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    webhook_endpoint_id: str
    limit: int
    starting_after: str
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., webhook_endpoint_id: _Optional[str] = ..., limit: _Optional[int] = ..., starting_after: _Optional[str] = ...) -> None: ...

class ListWebhookDeliveriesResponse(_message.Message):
    __slots__ = ("deliveries", "has_more")
    DELIVERIES_FIELD_NUMBER: _ClassVar[int]
    HAS_MORE_FIELD_NUMBER: _ClassVar[int]
    deliveries: _containers.RepeatedCompositeFieldContainer[_webhook_pb2.WebhookDelivery]
    has_more: bool
    def __init__(self, deliveries: _Optional[_Iterable[_Union[_webhook_pb2.WebhookDelivery, _Mapping]]] = ..., has_more: _Optional[bool] = ...) -> None: ...

class ListEventsRequest(_message.Message):
    __slots__ = ("caller", "type", "limit", "starting_after", "object_id")
    CALLER_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    STARTING_AFTER_FIELD_NUMBER: _ClassVar[int]
    OBJECT_ID_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    type: str
    limit: int
    starting_after: str
    object_id: str
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., type: _Optional[str] = ..., limit: _Optional[int] = ..., starting_after: _Optional[str] = ..., object_id: _Optional[str] = ...) -> None: ...

class ListEventsResponse(_message.Message):
    __slots__ = ("events", "has_more")
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    HAS_MORE_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[_webhook_pb2.Event]
    has_more: bool
    def __init__(self, events: _Optional[_Iterable[_Union[_webhook_pb2.Event, _Mapping]]] = ..., has_more: _Optional[bool] = ...) -> None: ...

class GetEventRequest(_message.Message):
    __slots__ = ("caller", "event_id")
    CALLER_FIELD_NUMBER: _ClassVar[int]
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    event_id: str
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., event_id: _Optional[str] = ...) -> None: ...

class GetEventResponse(_message.Message):
    __slots__ = ("event",)
    EVENT_FIELD_NUMBER: _ClassVar[int]
    event: _webhook_pb2.Event
    def __init__(self, event: _Optional[_Union[_webhook_pb2.Event, _Mapping]] = ...) -> None: ...

class ResendEventRequest(_message.Message):
    __slots__ = ("caller", "event_id", "idempotency")
    CALLER_FIELD_NUMBER: _ClassVar[int]
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    event_id: str
    idempotency: _common_pb2.Idempotency
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., event_id: _Optional[str] = ..., idempotency: _Optional[_Union[_common_pb2.Idempotency, _Mapping]] = ...) -> None: ...

class ResendEventResponse(_message.Message):
    __slots__ = ("deliveries",)
    DELIVERIES_FIELD_NUMBER: _ClassVar[int]
    deliveries: _containers.RepeatedCompositeFieldContainer[_webhook_pb2.WebhookDelivery]
    def __init__(self, deliveries: _Optional[_Iterable[_Union[_webhook_pb2.WebhookDelivery, _Mapping]]] = ...) -> None: ...
