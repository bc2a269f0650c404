from connect.v1 import catalog_pb2 as _catalog_pb2
from connect.v1 import common_pb2 as _common_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class CreateTaxRateRequest(_message.Message):
    __slots__ = ("caller", "percentage", "display_name", "jurisdiction", "inclusive", "country", "state", "metadata", "idempotency")
    class MetadataEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    CALLER_FIELD_NUMBER: _ClassVar[int]
    PERCENTAGE_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    JURISDICTION_FIELD_NUMBER: _ClassVar[int]
    INCLUSIVE_FIELD_NUMBER: _ClassVar[int]
    COUNTRY_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    percentage: str
    display_name: str
    jurisdiction: str
    inclusive: bool
    country: str
    state: str
    metadata: _containers.ScalarMap[str, str]
    idempotency: _common_pb2.Idempotency
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., percentage: _Optional[str] = ..., display_name: _Optional[str] = ..., jurisdiction: _Optional[str] = ..., inclusive: _Optional[bool] = ..., country: _Optional[str] = ..., state: _Optional[str] = ..., metadata: _Optional[_Mapping[str, str]] = ..., idempotency: _Optional[_Union[_common_pb2.Idempotency, _Mapping]] = ...) -> None: ...

class CreateTaxRateResponse(_message.Message):
    __slots__ = ("tax_rate",)
    TAX_RATE_FIELD_NUMBER: _ClassVar[int]
    tax_rate: _catalog_pb2.TaxRate
    def __init__(self, tax_rate: _Optional[_Union[_catalog_pb2.TaxRate, _Mapping]] = ...) -> None: ...

class ListTaxRatesRequest(_message.Message):
    __slots__ = ("caller", "limit", "starting_after")
    CALLER_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    STARTING_AFTER_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    limit: int
    starting_after: str
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., limit: _Optional[int] = ..., starting_after: _Optional[str] = ...) -> None: ...

class ListTaxRatesResponse(_message.Message):
    __slots__ = ("tax_rates", "has_more", "total_count")
    TAX_RATES_FIELD_NUMBER: _ClassVar[int]
    HAS_MORE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_COUNT_FIELD_NUMBER: _ClassVar[int]
    tax_rates: _containers.RepeatedCompositeFieldContainer[_catalog_pb2.TaxRate]
    has_more: bool
    total_count: int
    def __init__(self, tax_rates: _Optional[_Iterable[_Union[_catalog_pb2.TaxRate, _Mapping]]] = ..., has_more: _Optional[bool] = ..., total_count: _Optional[int] = ...) -> None: ...

class GetTaxRateRequest(_message.Message):
    __slots__ = ("caller", "tax_rate_id")
    CALLER_FIELD_NUMBER: _ClassVar[int]
    TAX_RATE_ID_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    tax_rate_id: str
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., tax_rate_id: _Optional[str] = ...) -> None: ...

class GetTaxRateResponse(_message.Message):
    __slots__ = ("tax_rate",)
    TAX_RATE_FIELD_NUMBER: _ClassVar[int]
    tax_rate: _catalog_pb2.TaxRate
    def __init__(self, tax_rate: _Optional[_Union[_catalog_pb2.TaxRate, _Mapping]] = ...) -> None: ...

class UpdateTaxRateRequest(_message.Message):
    __slots__ = ("caller", "tax_rate_id", "display_name", "active", "idempotency")
    CALLER_FIELD_NUMBER: _ClassVar[int]
    TAX_RATE_ID_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    tax_rate_id: str
    display_name: str
    active: bool
    idempotency: _common_pb2.Idempotency
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., tax_rate_id: _Optional[str] = ..., display_name: _Optional[str] = ..., active: _Optional[bool] = ..., idempotency: _Optional[_Union[_common_pb2.Idempotency, _Mapping]] = ...) -> None: ...

class UpdateTaxRateResponse(_message.Message):
    __slots__ = ("tax_rate",)
    TAX_RATE_FIELD_NUMBER: _ClassVar[int]
    tax_rate: _catalog_pb2.TaxRate
    def __init__(self, tax_rate: _Optional[_Union[_catalog_pb2.TaxRate, _Mapping]] = ...) -> None: ...

class CreatePlanRequest(_message.Message):
    __slots__ = ("caller", "name", "description", "metadata", "idempotency")
    class MetadataEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    CALLER_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    name: str
    description: str
    metadata: _containers.ScalarMap[str, str]
    idempotency: _common_pb2.Idempotency
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., name: _Optional[str] = ..., description: _Optional[str] = ..., metadata: _Optional[_Mapping[str, str]] = ..., idempotency: _Optional[_Union[_common_pb2.Idempotency, _Mapping]] = ...) -> None: ...

class CreatePlanResponse(_message.Message):
    __slots__ = ("plan",)
    PLAN_FIELD_NUMBER: _ClassVar[int]
    plan: _catalog_pb2.Plan
    def __init__(self, plan: _Optional[_Union[_catalog_pb2.Plan, _Mapping]] = ...) -> None: ...

class ListPlansRequest(_message.Message):
    __slots__ = ("caller", "limit", "starting_after")
    CALLER_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    STARTING_AFTER_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    limit: int
    starting_after: str
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., limit: _Optional[int] = ..., starting_after: _Optional[str] = ...) -> None: ...

class ListPlansResponse(_message.Message):
    __slots__ = ("plans", "has_more", "total_count")
    PLANS_FIELD_NUMBER: _ClassVar[int]
    HAS_MORE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_COUNT_FIELD_NUMBER: _ClassVar[int]
    plans: _containers.RepeatedCompositeFieldContainer[_catalog_pb2.Plan]
    has_more: bool
    total_count: int
    def __init__(self, plans: _Optional[_Iterable[_Union[_catalog_pb2.Plan, _Mapping]]] = ..., has_more: _Optional[bool] = ..., total_count: _Optional[int] = ...) -> None: ...

class GetPlanRequest(_message.Message):
    __slots__ = ("caller", "plan_id")
    CALLER_FIELD_NUMBER: _ClassVar[int]
    PLAN_ID_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    plan_id: str
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., plan_id: _Optional[str] = ...) -> None: ...

class GetPlanResponse(_message.Message):
    __slots__ = ("plan",)
    PLAN_FIELD_NUMBER: _ClassVar[int]
    plan: _catalog_pb2.Plan
    def __init__(self, plan: _Optional[_Union[_catalog_pb2.Plan, _Mapping]] = ...) -> None: ...

class CreatePriceRequest(_message.Message):
    __slots__ = ("caller", "plan_id", "amount_cents", "currency", "interval", "interval_count", "trial_period_days", "metadata", "idempotency")
    class MetadataEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    CALLER_FIELD_NUMBER: _ClassVar[int]
    PLAN_ID_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_CENTS_FIELD_NUMBER: _ClassVar[int]
    CURRENCY_FIELD_NUMBER: _ClassVar[int]
    INTERVAL_FIELD_NUMBER: _ClassVar[int]
    INTERVAL_COUNT_FIELD_NUMBER: _ClassVar[int]
    TRIAL_PERIOD_DAYS_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    plan_id: str
    amount_cents: int
    currency: str
    interval: str
    interval_count: int
    trial_period_days: int
    metadata: _containers.ScalarMap[str, str]
    idempotency: _common_pb2.Idempotency
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., plan_id: _Optional[str] = ..., amount_cents: _Optional[int] = ..., currency: _Optional[str] = ..., interval: _Optional[str] = ..., interval_count: _Optional[int] = ..., trial_period_days: _Optional[int] = ..., metadata: _Optional[_Mapping[str, str]] = ..., idempotency: _Optional[_Union[_common_pb2.Idempotency, _Mapping]] = ...) -> None: ...

class CreatePriceResponse(_message.Message):
    __slots__ = ("price",)
    PRICE_FIELD_NUMBER: _ClassVar[int]
    price: _catalog_pb2.Price
    def __init__(self, price: _Optional[_Union[_catalog_pb2.Price, _Mapping]] = ...) -> None: ...

class ListPricesRequest(_message.Message):
    __slots__ = ("caller", "plan_id", "limit", "starting_after")
    CALLER_FIELD_NUMBER: _ClassVar[int]
    PLAN_ID_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    STARTING_AFTER_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    plan_id: str
    limit: int
    starting_after: str
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., plan_id: _Optional[str] = ..., limit: _Optional[int] = ..., starting_after: _Optional[str] = ...) -> None: ...

class ListPricesResponse(_message.Message):
    __slots__ = ("prices", "has_more", "total_count")
    PRICES_FIELD_NUMBER: _ClassVar[int]
    HAS_MORE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_COUNT_FIELD_NUMBER: _ClassVar[int]
    prices: _containers.RepeatedCompositeFieldContainer[_catalog_pb2.Price]
    has_more: bool
    total_count: int
    def __init__(self, prices: _Optional[_Iterable[_Union[_catalog_pb2.Price, _Mapping]]] = ..., has_more: _Optional[bool] = ..., total_count: _Optional[int] = ...) -> None: ...

class GetPriceRequest(_message.Message):
    __slots__ = ("caller", "price_id")
    CALLER_FIELD_NUMBER: _ClassVar[int]
    PRICE_ID_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    price_id: str
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., price_id: _Optional[str] = ...) -> None: ...

class GetPriceResponse(_message.Message):
    __slots__ = ("price",)
    PRICE_FIELD_NUMBER: _ClassVar[int]
    price: _catalog_pb2.Price
    def __init__(self, price: _Optional[_Union[_catalog_pb2.Price, _Mapping]] = ...) -> None: ...

class UpdatePriceRequest(_message.Message):
    __slots__ = ("caller", "price_id", "active", "idempotency")
    CALLER_FIELD_NUMBER: _ClassVar[int]
    PRICE_ID_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    price_id: str
    active: bool
    idempotency: _common_pb2.Idempotency
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., price_id: _Optional[str] = ..., active: _Optional[bool] = ..., idempotency: _Optional[_Union[_common_pb2.Idempotency, _Mapping]] = ...) -> None: ...

class UpdatePriceResponse(_message.Message):
    __slots__ = ("price",)
    PRICE_FIELD_NUMBER: _ClassVar[int]
    price: _catalog_pb2.Price
    def __init__(self, price: _Optional[_Union[_catalog_pb2.Price, _Mapping]] = ...) -> None: ...
