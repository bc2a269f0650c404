"""CustomerServicer: the CustomerService RPCs over the customer use cases."""

from __future__ import annotations

from typing import Any

import grpc
from connect.v1 import customer_pb2, customer_service_pb2_grpc
from connect.v1 import customer_service_pb2 as pb

from core_server.billing.application.customer_balances import (
    CustomerBalanceService,
    balance_transaction_json,
)
from core_server.billing.application.customer_view import customer_json
from core_server.billing.application.customers import CustomerService
from core_server.billing.application.payment_method_view import payment_method_json
from core_server.billing.application.payment_methods import PaymentMethodService
from core_server.billing.domain.credit_balance import CustomerBalanceTransaction
from core_server.billing.domain.customer import ADDRESS_PARTS, Customer
from core_server.billing.domain.payment_method import PaymentMethod
from core_server.kernel.application.idempotency import Claim, IdempotentRunner
from core_server.kernel.application.owner import Owner
from core_server.kernel.transport.idempotent_rpc import idempotent_rpc
from core_server.kernel.transport.mapping import owner_from_caller
from core_server.kernel.transport.pages import page_fields, page_query
from core_server.payments.domain.card import CardInput
from core_server.rpc.status import rpc


def customer_to_pb(customer: Customer) -> customer_pb2.Customer:
    return customer_pb2.Customer(id=customer.id, object_json=customer_json(customer))


def payment_method_to_pb(method: PaymentMethod) -> customer_pb2.PaymentMethod:
    return customer_pb2.PaymentMethod(id=method.id, object_json=payment_method_json(method))


def card_from_pb(card: customer_pb2.VaultCardInput) -> CardInput:
    return CardInput(number=card.number, exp_month=card.exp_month, exp_year=card.exp_year, cvc=card.cvc)


def address_from_pb(address: customer_pb2.Address) -> dict[str, str | None]:
    return {part: getattr(address, part) if address.HasField(part) else None for part in ADDRESS_PARTS}


def _optional(request: Any, name: str) -> Any:
    return getattr(request, name) if request.HasField(name) else None


def _serialized(response: Any) -> bytes:
    return bytes(response.SerializeToString())


def balance_transaction_to_pb(
    transaction: CustomerBalanceTransaction,
) -> customer_pb2.CustomerBalanceTransaction:
    return customer_pb2.CustomerBalanceTransaction(
        id=transaction.id, object_json=balance_transaction_json(transaction)
    )


class CustomerServicer(customer_service_pb2_grpc.CustomerServiceServicer):
    def __init__(
        self,
        customers: CustomerService,
        payment_methods: PaymentMethodService,
        balances: CustomerBalanceService,
        runner: IdempotentRunner,
    ) -> None:
        self._customers = customers
        self._methods = payment_methods
        self._balances = balances
        self._runner = runner

    @rpc
    async def CreateCustomer(
        self, request: pb.CreateCustomerRequest, context: grpc.aio.ServicerContext
    ) -> pb.CreateCustomerResponse:
        async def operation(owner: Owner, claim: Claim[Customer] | None) -> Customer:
            return await self._customers.create(
                owner,
                email=request.email,
                name=_optional(request, "name"),
                address=address_from_pb(request.address) if request.HasField("address") else None,
                metadata=dict(request.metadata),
                claim=claim,
            )

        def build(customer: Customer) -> pb.CreateCustomerResponse:
            return pb.CreateCustomerResponse(customer=customer_to_pb(customer))

        return await idempotent_rpc(
            self._runner, context, request, pb.CreateCustomerResponse, build, operation
        )

    @rpc
    async def ListCustomers(
        self, request: pb.ListCustomersRequest, context: grpc.aio.ServicerContext
    ) -> pb.ListCustomersResponse:
        page = await self._customers.list(
            owner_from_caller(request.caller),
            email=_optional(request, "email"),
            **page_query(request),
        )
        return pb.ListCustomersResponse(
            customers=[customer_to_pb(c) for c in page.items],
            **page_fields(page, pb.ListCustomersResponse),
        )

    @rpc
    async def GetCustomer(
        self, request: pb.GetCustomerRequest, context: grpc.aio.ServicerContext
    ) -> pb.GetCustomerResponse:
        customer = await self._customers.get(owner_from_caller(request.caller), request.customer_id)
        return pb.GetCustomerResponse(customer=customer_to_pb(customer))

    @rpc
    async def UpdateCustomer(
        self, request: pb.UpdateCustomerRequest, context: grpc.aio.ServicerContext
    ) -> pb.UpdateCustomerResponse:
        async def operation(owner: Owner, _claim: object) -> Customer:
            return await self._customers.update(
                owner,
                request.customer_id,
                email=_optional(request, "email"),
                name=_optional(request, "name"),
                address=address_from_pb(request.address) if request.HasField("address") else None,
                metadata=dict(request.metadata.values) if request.HasField("metadata") else None,
                default_payment_method=_optional(request, "default_payment_method"),
            )

        def build(customer: Customer) -> pb.UpdateCustomerResponse:
            return pb.UpdateCustomerResponse(customer=customer_to_pb(customer))

        return await idempotent_rpc(
            self._runner, context, request, pb.UpdateCustomerResponse, build, operation
        )

    @rpc
    async def AttachPaymentMethod(
        self, request: pb.AttachPaymentMethodRequest, context: grpc.aio.ServicerContext
    ) -> pb.AttachPaymentMethodResponse:
        async def operation(owner: Owner, claim: Claim[PaymentMethod] | None) -> PaymentMethod:
            return await self._methods.attach(
                owner,
                request.customer_id,
                type_=request.type,
                card=card_from_pb(request.card) if request.HasField("card") else None,
                paypal_email=_optional(request, "paypal_email"),
                set_default=request.set_default,
                claim=claim,
            )

        def build(method: PaymentMethod) -> pb.AttachPaymentMethodResponse:
            return pb.AttachPaymentMethodResponse(payment_method=payment_method_to_pb(method))

        return await idempotent_rpc(
            self._runner, context, request, pb.AttachPaymentMethodResponse, build, operation
        )

    @rpc
    async def ListPaymentMethods(
        self, request: pb.ListPaymentMethodsRequest, context: grpc.aio.ServicerContext
    ) -> pb.ListPaymentMethodsResponse:
        page = await self._methods.list(
            owner_from_caller(request.caller),
            request.customer_id,
            **page_query(request),
        )
        return pb.ListPaymentMethodsResponse(
            payment_methods=[payment_method_to_pb(m) for m in page.items],
            **page_fields(page, pb.ListPaymentMethodsResponse),
        )

    @rpc
    async def DetachPaymentMethod(
        self, request: pb.DetachPaymentMethodRequest, context: grpc.aio.ServicerContext
    ) -> pb.DetachPaymentMethodResponse:
        async def operation(owner: Owner, _claim: object) -> PaymentMethod:
            return await self._methods.detach(owner, request.customer_id, request.payment_method_id)

        def build(method: PaymentMethod) -> pb.DetachPaymentMethodResponse:
            return pb.DetachPaymentMethodResponse(payment_method=payment_method_to_pb(method))

        return await idempotent_rpc(
            self._runner, context, request, pb.DetachPaymentMethodResponse, build, operation
        )

    @rpc
    async def ListCustomerBalanceTransactions(
        self, request: pb.ListCustomerBalanceTransactionsRequest, context: grpc.aio.ServicerContext
    ) -> pb.ListCustomerBalanceTransactionsResponse:
        page = await self._balances.list(
            owner_from_caller(request.caller),
            request.customer_id,
            **page_query(request),
        )
        return pb.ListCustomerBalanceTransactionsResponse(
            transactions=[balance_transaction_to_pb(t) for t in page.items],
            **page_fields(page, pb.ListCustomerBalanceTransactionsResponse),
        )

    @rpc
    async def CreateCustomerBalanceTransaction(
        self, request: pb.CreateCustomerBalanceTransactionRequest, context: grpc.aio.ServicerContext
    ) -> pb.CreateCustomerBalanceTransactionResponse:
        async def operation(
            owner: Owner, claim: Claim[CustomerBalanceTransaction] | None
        ) -> CustomerBalanceTransaction:
            return await self._balances.adjust(
                owner,
                request.customer_id,
                amount_cents=request.amount_cents,
                currency=request.currency,
                description=_optional(request, "description"),
                claim=claim,
            )

        def build(transaction: CustomerBalanceTransaction) -> pb.CreateCustomerBalanceTransactionResponse:
            return pb.CreateCustomerBalanceTransactionResponse(
                transaction=balance_transaction_to_pb(transaction)
            )

        return await idempotent_rpc(
            self._runner, context, request, pb.CreateCustomerBalanceTransactionResponse, build, operation
        )
