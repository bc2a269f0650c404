from connect.v1 import api_key_pb2 as _api_key_pb2
from connect.v1 import common_pb2 as _common_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class CreateApiKeyRequest(_message.Message):
    __slots__ = ("merchant_id", "name", "environment", "idempotency")
    MERCHANT_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    ENVIRONMENT_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_FIELD_NUMBER: _ClassVar[int]
    merchant_id: str
    name: str
    environment: _common_pb2.Environment
    idempotency: _common_pb2.Idempotency
    def __init__(self, merchant_id: _Optional[str] = ..., name: _Optional[str] = ..., environment: _Optional[_Union[_common_pb2.Environment, str]] = ..., idempotency: _Optional[_Union[_common_pb2.Idempotency, _Mapping]] = ...) -> None: ...

class CreateApiKeyResponse(_message.Message):
    __slots__ = ("api_key",)
    API_KEY_FIELD_NUMBER: _ClassVar[int]
    api_key: _api_key_pb2.ApiKey
    def __init__(self, api_key: _Optional[_Union[_api_key_pb2.ApiKey, _Mapping]] = ...) -> None: ...

class ListApiKeysRequest(_message.Message):
    __slots__ = ("merchant_id",)
    MERCHANT_ID_FIELD_NUMBER: _ClassVar[int]
    merchant_id: str
    def __init__(self, merchant_id: _Optional[str] = ...) -> None: ...

class ListApiKeysResponse(_message.Message):
    __slots__ = ("api_keys",)
    API_KEYS_FIELD_NUMBER: _ClassVar[int]
    api_keys: _containers.RepeatedCompositeFieldContainer[_api_key_pb2.ApiKey]
    def __init__(self, api_keys: _Optional[_Iterable[_Union[_api_key_pb2.ApiKey, _Mapping]]] = ...) -> None: ...

class RevokeApiKeyRequest(_message.Message):
    __slots__ = ("merchant_id", "key_id", "idempotency")
    MERCHANT_ID_FIELD_NUMBER: _ClassVar[int]
    KEY_ID_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_FIELD_NUMBER: _ClassVar[int]
    merchant_id: str
    key_id: str
    idempotency: _common_pb2.Idempotency
    def __init__(self, merchant_id: _Optional[str] = ..., key_id: _Optional[str] = ..., idempotency: _Optional[_Union[_common_pb2.Idempotency, _Mapping]] = ...) -> None: ...

class RevokeApiKeyResponse(_message.Message):
    __slots__ = ("api_key",)
    API_KEY_FIELD_NUMBER: _ClassVar[int]
    api_key: _api_key_pb2.ApiKey
    def __init__(self, api_key: _Optional[_Union[_api_key_pb2.ApiKey, _Mapping]] = ...) -> None: ...

class AuthenticateApiKeyRequest(_message.Message):
    __slots__ = ("key",)
    KEY_FIELD_NUMBER: _ClassVar[int]
    key: str
    def __init__(self, key: _Optional[str] = ...) -> None: ...

class AuthenticateApiKeyResponse(_message.Message):
    __slots__ = ("merchant_id", "environment", "kind", "key_id")
    MERCHANT_ID_FIELD_NUMBER: _ClassVar[int]
    ENVIRONMENT_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    KEY_ID_FIELD_NUMBER: _ClassVar[int]
    merchant_id: str
    environment: _common_pb2.Environment
    kind: _api_key_pb2.ApiKeyKind
    key_id: str
    def __init__(self, merchant_id: _Optional[str] = ..., environment: _Optional[_Union[_common_pb2.Environment, str]] = ..., kind: _Optional[_Union[_api_key_pb2.ApiKeyKind, str]] = ..., key_id: _Optional[str] = ...) -> None: ...
