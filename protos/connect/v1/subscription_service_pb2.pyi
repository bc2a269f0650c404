from connect.v1 import common_pb2 as _common_pb2
from connect.v1 import customer_pb2 as _customer_pb2
from connect.v1 import subscription_pb2 as _subscription_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class CreateSubscriptionRequest(_message.Message):
    __slots__ = ("caller", "customer_id", "price_id", "collection_method", "tax_rate_id", "metadata", "idempotency")
    class MetadataEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    CALLER_FIELD_NUMBER: _ClassVar[int]
    CUSTOMER_ID_FIELD_NUMBER: _ClassVar[int]
    PRICE_ID_FIELD_NUMBER: _ClassVar[int]
    COLLECTION_METHOD_FIELD_NUMBER: _ClassVar[int]
    TAX_RATE_ID_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    customer_id: str
    price_id: str
    collection_method: str
    tax_rate_id: str
    metadata: _containers.ScalarMap[str, str]
    idempotency: _common_pb2.Idempotency
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., customer_id: _Optional[str] = ..., price_id: _Optional[str] = ..., collection_method: _Optional[str] = ..., tax_rate_id: _Optional[str] = ..., metadata: _Optional[_Mapping[str, str]] = ..., idempotency: _Optional[_Union[_common_pb2.Idempotency, _Mapping]] = ...) -> None: ...

class CreateSubscriptionResponse(_message.Message):
    __slots__ = ("subscription",)
    SUBSCRIPTION_FIELD_NUMBER: _ClassVar[int]
    subscription: _subscription_pb2.Subscription
    def __init__(self, subscription: _Optional[_Union[_subscription_pb2.Subscription, _Mapping]] = ...) -> None: ...

class ListSubscriptionsRequest(_message.Message):
    __slots__ = ("caller", "customer_id", "status", "price_id", "limit", "starting_after")
    CALLER_FIELD_NUMBER: _ClassVar[int]
    CUSTOMER_ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    PRICE_ID_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    STARTING_AFTER_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    customer_id: str
    status: _subscription_pb2.SubscriptionStatus
    price_id: str
    limit: int
    starting_after: str
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., customer_id: _Optional[str] = ..., status: _Optional[_Union[_subscription_pb2.SubscriptionStatus, str]] = ..., price_id: _Optional[str] = ..., limit: _Optional[int] = ..., starting_after: _Optional[str] = ...) -> None: ...

class ListSubscriptionsResponse(_message.Message):
    __slots__ = ("subscriptions", "has_more", "total_count")
    SUBSCRIPTIONS_FIELD_NUMBER: _ClassVar[int]
    HAS_MORE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_COUNT_FIELD_NUMBER: _ClassVar[int]
    subscriptions: _containers.RepeatedCompositeFieldContainer[_subscription_pb2.Subscription]
    has_more: bool
    total_count: int
    def __init__(self, subscriptions: _Optional[_Iterable[_Union[_subscription_pb2.Subscription, _Mapping]]] = ..., has_more: _Optional[bool] = ..., total_count: _Optional[int] = ...) -> None: ...

class GetSubscriptionRequest(_message.Message):
    __slots__ = ("caller", "subscription_id")
    CALLER_FIELD_NUMBER: _ClassVar[int]
    SUBSCRIPTION_ID_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    subscription_id: str
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., subscription_id: _Optional[str] = ...) -> None: ...

class GetSubscriptionResponse(_message.Message):
    __slots__ = ("subscription",)
    SUBSCRIPTION_FIELD_NUMBER: _ClassVar[int]
    subscription: _subscription_pb2.Subscription
    def __init__(self, subscription: _Optional[_Union[_subscription_pb2.Subscription, _Mapping]] = ...) -> None: ...

class UpdateSubscriptionRequest(_message.Message):
    __slots__ = ("caller", "subscription_id", "price_id", "proration_behavior", "metadata", "tax_rate_id", "idempotency")
    CALLER_FIELD_NUMBER: _ClassVar[int]
    SUBSCRIPTION_ID_FIELD_NUMBER: _ClassVar[int]
    PRICE_ID_FIELD_NUMBER: _ClassVar[int]
    PRORATION_BEHAVIOR_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    TAX_RATE_ID_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    subscription_id: str
    price_id: str
    proration_behavior: str
    metadata: _customer_pb2.MetadataPatch
    tax_rate_id: str
    idempotency: _common_pb2.Idempotency
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., subscription_id: _Optional[str] = ..., price_id: _Optional[str] = ..., proration_behavior: _Optional[str] = ..., metadata: _Optional[_Union[_customer_pb2.MetadataPatch, _Mapping]] = ..., tax_rate_id: _Optional[str] = ..., idempotency: _Optional[_Union[_common_pb2.Idempotency, _Mapping]] = ...) -> None: ...

class UpdateSubscriptionResponse(_message.Message):
    __slots__ = ("subscription",)
    SUBSCRIPTION_FIELD_NUMBER: _ClassVar[int]
    subscription: _subscription_pb2.Subscription
    def __init__(self, subscription: _Optional[_Union[_subscription_pb2.Subscription, _Mapping]] = ...) -> None: ...

class CancelSubscriptionRequest(_message.Message):
    __slots__ = ("caller", "subscription_id", "at_period_end", "prorate", "idempotency")
    CALLER_FIELD_NUMBER: _ClassVar[int]
    SUBSCRIPTION_ID_FIELD_NUMBER: _ClassVar[int]
    AT_PERIOD_END_FIELD_NUMBER: _ClassVar[int]
    PRORATE_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    subscription_id: str
    at_period_end: bool
    prorate: bool
    idempotency: _common_pb2.Idempotency
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., subscription_id: _Optional[str] = ..., at_period_end: _Optional[bool] = ..., prorate: _Optional[bool] = ..., idempotency: _Optional[_Union[_common_pb2.Idempotency, _Mapping]] = ...) -> None: ...

class CancelSubscriptionResponse(_message.Message):
    __slots__ = ("subscription",)
    SUBSCRIPTION_FIELD_NUMBER: _ClassVar[int]
    subscription: _subscription_pb2.Subscription
    def __init__(self, subscription: _Optional[_Union[_subscription_pb2.Subscription, _Mapping]] = ...) -> None: ...

class PauseSubscriptionRequest(_message.Message):
    __slots__ = ("caller", "subscription_id", "idempotency")
    CALLER_FIELD_NUMBER: _ClassVar[int]
    SUBSCRIPTION_ID_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    subscription_id: str
    idempotency: _common_pb2.Idempotency
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., subscription_id: _Optional[str] = ..., idempotency: _Optional[_Union[_common_pb2.Idempotency, _Mapping]] = ...) -> None: ...

class PauseSubscriptionResponse(_message.Message):
    __slots__ = ("subscription",)
    SUBSCRIPTION_FIELD_NUMBER: _ClassVar[int]
    subscription: _subscription_pb2.Subscription
    def __init__(self, subscription: _Optional[_Union[_subscription_pb2.Subscription, _Mapping]] = ...) -> None: ...

class ResumeSubscriptionRequest(_message.Message):
    __slots__ = ("caller", "subscription_id", "idempotency")
    CALLER_FIELD_NUMBER: _ClassVar[int]
    SUBSCRIPTION_ID_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    subscription_id: str
    idempotency: _common_pb2.Idempotency
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., subscription_id: _Optional[str] = ..., idempotency: _Optional[_Union[_common_pb2.Idempotency, _Mapping]] = ...) -> None: ...

class ResumeSubscriptionResponse(_message.Message):
    __slots__ = ("subscription",)
    SUBSCRIPTION_FIELD_NUMBER: _ClassVar[int]
    subscription: _subscription_pb2.Subscription
    def __init__(self, subscription: _Optional[_Union[_subscription_pb2.Subscription, _Mapping]] = ...) -> None: ...

class AddSubscriptionItemRequest(_message.Message):
    __slots__ = ("caller", "subscription_id", "price_id", "quantity", "proration_behavior", "metadata", "idempotency")
    class MetadataEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    CALLER_FIELD_NUMBER: _ClassVar[int]
    SUBSCRIPTION_ID_FIELD_NUMBER: _ClassVar[int]
    PRICE_ID_FIELD_NUMBER: _ClassVar[int]
    QUANTITY_FIELD_NUMBER: _ClassVar[int]
    PRORATION_BEHAVIOR_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    subscription_id: str
    price_id: str
    quantity: int
    proration_behavior: str
    metadata: _containers.ScalarMap[str, str]
    idempotency: _common_pb2.Idempotency
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., subscription_id: _Optional[str] = ..., price_id: _Optional[str] = ..., quantity: _Optional[int] = ..., proration_behavior: _Optional[str] = ..., metadata: _Optional[_Mapping[str, str]] = ..., idempotency: _Optional[_Union[_common_pb2.Idempotency, _Mapping]] = ...) -> None: ...

class AddSubscriptionItemResponse(_message.Message):
    __slots__ = ("item",)
    ITEM_FIELD_NUMBER: _ClassVar[int]
    item: _subscription_pb2.SubscriptionItem
    def __init__(self, item: _Optional[_Union[_subscription_pb2.SubscriptionItem, _Mapping]] = ...) -> None: ...

class ListSubscriptionItemsRequest(_message.Message):
    __slots__ = ("caller", "subscription_id", "limit", "starting_after")
    CALLER_FIELD_NUMBER: _ClassVar[int]
    SUBSCRIPTION_ID_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    STARTING_AFTER_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    subscription_id: str
    limit: int
    starting_after: str
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., subscription_id: _Optional[str] = ..., limit: _Optional[int] = ..., starting_after: _Optional[str] = ...) -> None: ...

class ListSubscriptionItemsResponse(_message.Message):
    __slots__ = ("items", "has_more", "total_count")
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    HAS_MORE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_COUNT_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[_subscription_pb2.SubscriptionItem]
    has_more: bool
    total_count: int
    def __init__(self, items: _Optional[_Iterable[_Union[_subscription_pb2.SubscriptionItem, _Mapping]]] = ..., has_more: _Optional[bool] = ..., total_count: _Optional[int] = ...) -> None: ...

class UpdateSubscriptionItemRequest(_message.Message):
    __slots__ = ("caller", "subscription_id", "item_id", "quantity", "proration_behavior", "idempotency")
    CALLER_FIELD_NUMBER: _ClassVar[int]
    SUBSCRIPTION_ID_FIELD_NUMBER: _ClassVar[int]
    ITEM_ID_FIELD_NUMBER: _ClassVar[int]
    QUANTITY_FIELD_NUMBER: _ClassVar[int]
    PRORATION_BEHAVIOR_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    subscription_id: str
    item_id: str
    quantity: int
    proration_behavior: str
    idempotency: _common_pb2.Idempotency
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., subscription_id: _Optional[str] = ..., item_id: _Optional[str] = ..., quantity: _Optional[int] = ..., proration_behavior: _Optional[str] = ..., idempotency: _Optional[_Union[_common_pb2.Idempotency, _Mapping]] = ...) -> None: ...

class UpdateSubscriptionItemResponse(_message.Message):
    __slots__ = ("item",)
    ITEM_FIELD_NUMBER: _ClassVar[int]
    item: _subscription_pb2.SubscriptionItem
    def __init__(self, item: _Optional[_Union[_subscription_pb2.SubscriptionItem, _Mapping]] = ...) -> None: ...

class RemoveSubscriptionItemRequest(_message.Message):
    __slots__ = ("caller", "subscription_id", "item_id", "immediate", "idempotency")
    CALLER_FIELD_NUMBER: _ClassVar[int]
    SUBSCRIPTION_ID_FIELD_NUMBER: _ClassVar[int]
    ITEM_ID_FIELD_NUMBER: _ClassVar[int]
    IMMEDIATE_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    subscription_id: str
    item_id: str
    immediate: bool
    idempotency: _common_pb2.Idempotency
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., subscription_id: _Optional[str] = ..., item_id: _Optional[str] = ..., immediate: _Optional[bool] = ..., idempotency: _Optional[_Union[_common_pb2.Idempotency, _Mapping]] = ...) -> None: ...

class RemoveSubscriptionItemResponse(_message.Message):
    __slots__ = ("item",)
    ITEM_FIELD_NUMBER: _ClassVar[int]
    item: _subscription_pb2.SubscriptionItem
    def __init__(self, item: _Optional[_Union[_subscription_pb2.SubscriptionItem, _Mapping]] = ...) -> None: ...

class PreviewPriceChange(_message.Message):
    __slots__ = ("price_id", "proration_behavior")
    PRICE_ID_FIELD_NUMBER: _ClassVar[int]
    PRORATION_BEHAVIOR_FIELD_NUMBER: _ClassVar[int]
    price_id: str
    proration_behavior: str
    def __init__(self, price_id: _Optional[str] = ..., proration_behavior: _Optional[str] = ...) -> None: ...

class PreviewAddItem(_message.Message):
    __slots__ = ("price_id", "quantity", "proration_behavior")
    PRICE_ID_FIELD_NUMBER: _ClassVar[int]
    QUANTITY_FIELD_NUMBER: _ClassVar[int]
    PRORATION_BEHAVIOR_FIELD_NUMBER: _ClassVar[int]
    price_id: str
    quantity: int
    proration_behavior: str
    def __init__(self, price_id: _Optional[str] = ..., quantity: _Optional[int] = ..., proration_behavior: _Optional[str] = ...) -> None: ...

class PreviewUpdateItem(_message.Message):
    __slots__ = ("item_id", "quantity")
    ITEM_ID_FIELD_NUMBER: _ClassVar[int]
    QUANTITY_FIELD_NUMBER: _ClassVar[int]
    item_id: str
    quantity: int
    def __init__(self, item_id: _Optional[str] = ..., quantity: _Optional[int] = ...) -> None: ...

class PreviewRemoveItem(_message.Message):
    __slots__ = ("item_id", "immediate")
    ITEM_ID_FIELD_NUMBER: _ClassVar[int]
    IMMEDIATE_FIELD_NUMBER: _ClassVar[int]
    item_id: str
    immediate: bool
    def __init__(self, item_id: _Optional[str] = ..., immediate: _Optional[bool] = ...) -> None: ...

class PreviewSubscriptionChangeRequest(_message.Message):
    __slots__ = ("caller", "subscription_id", "price_change", "add_item", "update_item", "remove_item", "idempotency")
    CALLER_FIELD_NUMBER: _ClassVar[int]
    SUBSCRIPTION_ID_FIELD_NUMBER: _ClassVar[int]
    PRICE_CHANGE_FIELD_NUMBER: _ClassVar[int]
    ADD_ITEM_FIELD_NUMBER: _ClassVar[int]
    UPDATE_ITEM_FIELD_NUMBER: _ClassVar[int]
    REMOVE_ITEM_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    subscription_id: str
    price_change: PreviewPriceChange
    add_item: PreviewAddItem
    update_item: PreviewUpdateItem
    remove_item: PreviewRemoveItem
    idempotency: _common_pb2.Idempotency
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., subscription_id: _Optional[str] = ..., price_change: _Optional[_Union[PreviewPriceChange, _Mapping]] = ..., add_item: _Optional[_Union[PreviewAddItem, _Mapping]] = ..., update_item: _Optional[_Union[PreviewUpdateItem, _Mapping]] = ..., remove_item: _Optional[_Union[PreviewRemoveItem, _Mapping]] = ..., idempotency: _Optional[_Union[_common_pb2.Idempotency, _Mapping]] = ...) -> None: ...

class PreviewSubscriptionChangeResponse(_message.Message):
    __slots__ = ("preview",)
    PREVIEW_FIELD_NUMBER: _ClassVar[int]
    preview: _subscription_pb2.SubscriptionPreview
    def __init__(self, preview: _Optional[_Union[_subscription_pb2.SubscriptionPreview, _Mapping]] = ...) -> None: ...

class GetInvoiceRequest(_message.Message):
    __slots__ = ("caller", "invoice_id")
    CALLER_FIELD_NUMBER: _ClassVar[int]
    INVOICE_ID_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    invoice_id: str
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., invoice_id: _Optional[str] = ...) -> None: ...

class GetInvoiceResponse(_message.Message):
    __slots__ = ("invoice",)
    INVOICE_FIELD_NUMBER: _ClassVar[int]
    invoice: _subscription_pb2.Invoice
    def __init__(self, invoice: _Optional[_Union[_subscription_pb2.Invoice, _Mapping]] = ...) -> None: ...

class ListInvoicesRequest(_message.Message):
    __slots__ = ("caller", "subscription_id", "customer_id", "status", "limit", "starting_after")
    CALLER_FIELD_NUMBER: _ClassVar[int]
    SUBSCRIPTION_ID_FIELD_NUMBER: _ClassVar[int]
    CUSTOMER_ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    STARTING_AFTER_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    subscription_id: str
    customer_id: str
    status: _subscription_pb2.InvoiceStatus
    limit: int
    starting_after: str
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., subscription_id: _Optional[str] = ..., customer_id: _Optional[str] = ..., status: _Optional[_Union[_subscription_pb2.InvoiceStatus, str]] = ..., limit: _Optional[int] = ..., starting_after: _Optional[str] = ...) -> None: ...

class ListInvoicesResponse(_message.Message):
    __slots__ = ("invoices", "has_more", "total_count")
    INVOICES_FIELD_NUMBER: _ClassVar[int]
    HAS_MORE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_COUNT_FIELD_NUMBER: _ClassVar[int]
    invoices: _containers.RepeatedCompositeFieldContainer[_subscription_pb2.Invoice]
    has_more: bool
    total_count: int
    def __init__(self, invoices: _Optional[_Iterable[_Union[_subscription_pb2.Invoice, _Mapping]]] = ..., has_more: _Optional[bool] = ..., total_count: _Optional[int] = ...) -> None: ...

class VoidInvoiceRequest(_message.Message):
    __slots__ = ("caller", "invoice_id", "idempotency")
    CALLER_FIELD_NUMBER: _ClassVar[int]
    INVOICE_ID_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    invoice_id: str
    idempotency: _common_pb2.Idempotency
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., invoice_id: _Optional[str] = ..., idempotency: _Optional[_Union[_common_pb2.Idempotency, _Mapping]] = ...) -> None: ...

class VoidInvoiceResponse(_message.Message):
    __slots__ = ("invoice",)
    INVOICE_FIELD_NUMBER: _ClassVar[int]
    invoice: _subscription_pb2.Invoice
    def __init__(self, invoice: _Optional[_Union[_subscription_pb2.Invoice, _Mapping]] = ...) -> None: ...
