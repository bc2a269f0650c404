from connect.v1 import common_pb2 as _common_pb2
from connect.v1 import customer_pb2 as _customer_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class CreateCustomerRequest(_message.Message):
    __slots__ = ("caller", "email", "name", "address", "metadata", "idempotency")
    class MetadataEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    CALLER_FIELD_NUMBER: _ClassVar[int]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    ADDRESS_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    email: str
    name: str
    address: _customer_pb2.Address
    metadata: _containers.ScalarMap[str, str]
    idempotency: _common_pb2.Idempotency
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., email: _Optional[str] = ..., name: _Optional[str] = ..., address: _Optional[_Union[_customer_pb2.Address, _Mapping]] = ..., metadata: _Optional[_Mapping[str, str]] = ..., idempotency: _Optional[_Union[_common_pb2.Idempotency, _Mapping]] = ...) -> None: ...

class CreateCustomerResponse(_message.Message):
    __slots__ = ("customer",)
    CUSTOMER_FIELD_NUMBER: _ClassVar[int]
    customer: _customer_pb2.Customer
    def __init__(self, customer: _Optional[_Union[_customer_pb2.Customer, _Mapping]] = ...) -> None: ...

class ListCustomersRequest(_message.Message):
    __slots__ = ("caller", "email", "limit", "starting_after")
    CALLER_FIELD_NUMBER: _ClassVar[int]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    STARTING_AFTER_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    email: str
    limit: int
    starting_after: str
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., email: _Optional[str] = ..., limit: _Optional[int] = ..., starting_after: _Optional[str] = ...) -> None: ...

class ListCustomersResponse(_message.Message):
    __slots__ = ("customers", "has_more", "total_count")
    CUSTOMERS_FIELD_NUMBER: _ClassVar[int]
    HAS_MORE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_COUNT_FIELD_NUMBER: _ClassVar[int]
    customers: _containers.RepeatedCompositeFieldContainer[_customer_pb2.Customer]
    has_more: bool
    total_count: int
    def __init__(self, customers: _Optional[_Iterable[_Union[_customer_pb2.Customer, _Mapping]]] = ..., has_more: _Optional[bool] = ..., total_count: _Optional[int] = ...) -> None: ...

class GetCustomerRequest(_message.Message):
    __slots__ = ("caller", "customer_id")
    CALLER_FIELD_NUMBER: _ClassVar[int]
    CUSTOMER_ID_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    customer_id: str
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., customer_id: _Optional[str] = ...) -> None: ...

class GetCustomerResponse(_message.Message):
    __slots__ = ("customer",)
    CUSTOMER_FIELD_NUMBER: _ClassVar[int]
    customer: _customer_pb2.Customer
    def __init__(self, customer: _Optional[_Union[_customer_pb2.Customer, _Mapping]] = ...) -> None: ...

class UpdateCustomerRequest(_message.Message):
    __slots__ = ("caller", "customer_id", "email", "name", "address", "metadata", "default_payment_method", "idempotency")
    CALLER_FIELD_NUMBER: _ClassVar[int]
    CUSTOMER_ID_FIELD_NUMBER: _ClassVar[int]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    ADDRESS_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_PAYMENT_METHOD_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    customer_id: str
    email: str
    name: str
    address: _customer_pb2.Address
    metadata: _customer_pb2.MetadataPatch
    default_payment_method: str
    idempotency: _common_pb2.Idempotency
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., customer_id: _Optional[str] = ..., email: _Optional[str] = ..., name: _Optional[str] = ..., address: _Optional[_Union[_customer_pb2.Address, _Mapping]] = ..., metadata: _Optional[_Union[_customer_pb2.MetadataPatch, _Mapping]] = ..., default_payment_method: _Optional[str] = ..., idempotency: _Optional[_Union[_common_pb2.Idempotency, _Mapping]] = ...) -> None: ...

class UpdateCustomerResponse(_message.Message):
    __slots__ = ("customer",)
    CUSTOMER_FIELD_NUMBER: _ClassVar[int]
    customer: _customer_pb2.Customer
    def __init__(self, customer: _Optional[_Union[_customer_pb2.Customer, _Mapping]] = ...) -> None: ...

class AttachPaymentMethodRequest(_message.Message):
    __slots__ = ("caller", "customer_id", "type", "card", "paypal_email", "set_default", "idempotency")
    CALLER_FIELD_NUMBER: _ClassVar[int]
    CUSTOMER_ID_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    PAYPAL_EMAIL_FIELD_NUMBER: _ClassVar[int]
    SET_DEFAULT_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    customer_id: str
    type: str
    card: _customer_pb2.VaultCardInput
    paypal_email: str
    set_default: bool
    idempotency: _common_pb2.Idempotency
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., customer_id: _Optional[str] = ..., type: _Optional[str] = ..., card: _Optional[_Union[_customer_pb2.VaultCardInput, _Mapping]] = ..., paypal_email: _Optional[str] = ..., set_default: _Optional[bool] = ..., idempotency: _Optional[_Union[_common_pb2.Idempotency, _Mapping]] = ...) -> None: ...

class AttachPaymentMethodResponse(_message.Message):
    __slots__ = ("payment_method",)
    PAYMENT_METHOD_FIELD_NUMBER: _ClassVar[int]
    payment_method: _customer_pb2.PaymentMethod
    def __init__(self, payment_method: _Optional[_Union[_customer_pb2.PaymentMethod, _Mapping]] = ...) -> None: ...

class ListPaymentMethodsRequest(_message.Message):
    __slots__ = ("caller", "customer_id", "limit", "starting_after")
    CALLER_FIELD_NUMBER: _ClassVar[int]
    CUSTOMER_ID_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    STARTING_AFTER_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    customer_id: str
    limit: int
    starting_after: str
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., customer_id: _Optional[str] = ..., limit: _Optional[int] = ..., starting_after: _Optional[str] = ...) -> None: ...

class ListPaymentMethodsResponse(_message.Message):
    __slots__ = ("payment_methods", "has_more", "total_count")
    PAYMENT_METHODS_FIELD_NUMBER: _ClassVar[int]
    HAS_MORE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_COUNT_FIELD_NUMBER: _ClassVar[int]
    payment_methods: _containers.RepeatedCompositeFieldContainer[_customer_pb2.PaymentMethod]
    has_more: bool
    total_count: int
    def __init__(self, payment_methods: _Optional[_Iterable[_Union[_customer_pb2.PaymentMethod, _Mapping]]] = ..., has_more: _Optional[bool] = ..., total_count: _Optional[int] = ...) -> None: ...

class DetachPaymentMethodRequest(_message.Message):
    __slots__ = ("caller", "customer_id", "payment_method_id", "idempotency")
    CALLER_FIELD_NUMBER: _ClassVar[int]
    CUSTOMER_ID_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_METHOD_ID_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    customer_id: str
    payment_method_id: str
    idempotency: _common_pb2.Idempotency
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., customer_id: _Optional[str] = ..., payment_method_id: _Optional[str] = ..., idempotency: _Optional[_Union[_common_pb2.Idempotency, _Mapping]] = ...) -> None: ...

class DetachPaymentMethodResponse(_message.Message):
    __slots__ = ("payment_method",)
    PAYMENT_METHOD_FIELD_NUMBER: _ClassVar[int]
    payment_method: _customer_pb2.PaymentMethod
    def __init__(self, payment_method: _Optional[_Union[_customer_pb2.PaymentMethod, _Mapping]] = ...) -> None: ...

class ListCustomerBalanceTransactionsRequest(_message.Message):
    __slots__ = ("caller", "customer_id", "limit", "starting_after")
    CALLER_FIELD_NUMBER: _ClassVar[int]
    CUSTOMER_ID_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    STARTING_AFTER_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    customer_id: str
    limit: int
    starting_after: str
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., customer_id: _Optional[str] = ..., limit: _Optional[int] = ..., starting_after: _Optional[str] = ...) -> None: ...

class ListCustomerBalanceTransactionsResponse(_message.Message):
    __slots__ = ("transactions", "has_more", "total_count")
    TRANSACTIONS_FIELD_NUMBER: _ClassVar[int]
    HAS_MORE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_COUNT_FIELD_NUMBER: _ClassVar[int]
    transactions: _containers.RepeatedCompositeFieldContainer[_customer_pb2.CustomerBalanceTransaction]
    has_more: bool
    total_count: int
    def __init__(self, transactions: _Optional[_Iterable[_Union[_customer_pb2.CustomerBalanceTransaction, _Mapping]]] = ..., has_more: _Optional[bool] = ..., total_count: _Optional[int] = ...) -> None: ...

class CreateCustomerBalanceTransactionRequest(_message.Message):
    __slots__ = ("caller", "customer_id", "amount_cents", "currency", "description", "idempotency")
    CALLER_FIELD_NUMBER: _ClassVar[int]
    CUSTOMER_ID_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_CENTS_FIELD_NUMBER: _ClassVar[int]
    CURRENCY_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_FIELD_NUMBER: _ClassVar[int]
    caller: _common_pb2.Caller
    customer_id: str
    amount_cents: int
    currency: str
    description: str
    idempotency: _common_pb2.Idempotency
    def __init__(self, caller: _Optional[_Union[_common_pb2.Caller, _Mapping]] = ..., customer_id: _Optional[str] = ..., amount_cents: _Optional[int] = ..., currency: _Optional[str] = ..., description: _Optional[str] = ..., idempotency: _Optional[_Union[_common_pb2.Idempotency, _Mapping]] = ...) -> None: ...

class CreateCustomerBalanceTransactionResponse(_message.Message):
    __slots__ = ("transaction",)
    TRANSACTION_FIELD_NUMBER: _ClassVar[int]
    transaction: _customer_pb2.CustomerBalanceTransaction
    def __init__(self, transaction: _Optional[_Union[_customer_pb2.CustomerBalanceTransaction, _Mapping]] = ...) -> None: ...
