"""DESIGN §9: a new default payment method retries the open invoice at once. Customers and the vault tell
a listener after the write; these tests pin when they do, and that a failing listener never fails the
merchant's request. In-memory repositories stand in for the two the services write through."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import pytest

from core_server.billing.application.customers import CustomerService
from core_server.billing.application.payment_methods import PaymentMethodService
from core_server.billing.domain.customer import Customer
from core_server.billing.domain.payment_method import PaymentMethod
from core_server.kernel.application.owner import Owner
from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.sealed import Sealed
from core_server.payments.domain.card import CardInput
from tests.fakes import FakeClocks

OWNER = Owner("acct_" + "m" * 24, Environment.TEST)
CUSTOMER = "cus_" + "c" * 24
GOOD_CARD = CardInput(number="4242424242424242", exp_month=12, exp_year=2040, cvc="123")


class Store:
    """One customer, its methods, and every write: enough of both repositories for the services."""

    def __init__(self) -> None:
        self.customer = Customer(
            id=CUSTOMER,
            merchant_id=OWNER.merchant_id,
            environment=OWNER.environment,
            email="buyer@example.com",
            name=None,
            address=None,
            default_payment_method=None,
            metadata={},
            created=datetime(2026, 1, 1, tzinfo=UTC),
        )
        self.methods: list[PaymentMethod] = []

    # CustomerRepository
    async def get(self, merchant_id: str, environment: Environment, customer_id: str) -> Customer | None:
        return self.customer if customer_id == CUSTOMER else None

    async def update(self, merchant_id: str, environment: Environment, customer_id: str, mutate: Any) -> Any:
        self.customer, _ = mutate(self.customer)
        return self.customer

    # PaymentMethodRepository
    async def customer_exists(self, merchant_id: str, environment: Environment, customer_id: str) -> bool:
        return customer_id == CUSTOMER

    async def attach(self, method: PaymentMethod, sealed: Sealed, decide: Any, completion: Any) -> Any:
        self.methods.append(method)
        self.customer, _ = decide(self.customer)
        return self.customer


class Sealer:
    def seal(self, plaintext: str, context: str) -> Sealed:
        return Sealed(key_id="k", ciphertext=plaintext.encode())

    def open(self, sealed: Sealed, context: str) -> str:
        return sealed.ciphertext.decode()


class Listener:
    def __init__(self, error: Exception | None = None) -> None:
        self.calls: list[tuple[Owner, str]] = []
        self._error = error

    async def __call__(self, owner: Owner, customer_id: str) -> None:
        self.calls.append((owner, customer_id))
        if self._error is not None:
            raise self._error


@pytest.fixture
def store() -> Store:
    return Store()


@pytest.fixture
def listener() -> Listener:
    return Listener()


@pytest.fixture
def customers(store: Store, listener: Listener) -> CustomerService:
    service = CustomerService(store, FakeClocks())  # type: ignore[arg-type]
    service.on_default_changed(listener)
    return service


@pytest.fixture
def vault(store: Store, listener: Listener) -> PaymentMethodService:
    service = PaymentMethodService(store, Sealer(), FakeClocks())  # type: ignore[arg-type]
    service.on_default_changed(listener)
    return service


async def attach(vault: PaymentMethodService, *, set_default: bool = False) -> PaymentMethod:
    return await vault.attach(
        OWNER, CUSTOMER, type_="card", card=GOOD_CARD, paypal_email=None, set_default=set_default
    )


def customer_ids(calls: Sequence[tuple[Owner, str]]) -> list[str]:
    return [customer_id for _, customer_id in calls]


async def test_the_first_attach_becomes_the_default_and_is_told(vault, store, listener) -> None:
    method = await attach(vault)
    assert store.customer.default_payment_method == method.id
    assert listener.calls == [(OWNER, CUSTOMER)]


async def test_a_second_attach_is_told_only_when_it_is_set_as_default(vault, store, listener) -> None:
    first = await attach(vault)
    await attach(vault)
    assert store.customer.default_payment_method == first.id
    assert customer_ids(listener.calls) == [CUSTOMER]
    third = await attach(vault, set_default=True)
    assert store.customer.default_payment_method == third.id
    assert customer_ids(listener.calls) == [CUSTOMER, CUSTOMER]


async def test_a_patch_of_the_default_is_told_once_it_changes(vault, customers, store, listener) -> None:
    first = await attach(vault)
    second = await attach(vault)
    listener.calls.clear()
    await customers.update(OWNER, CUSTOMER, default_payment_method=second.id)
    assert listener.calls == [(OWNER, CUSTOMER)]
    await customers.update(OWNER, CUSTOMER, default_payment_method=second.id)  # the same default again
    await customers.update(OWNER, CUSTOMER, name="Ada")  # not about the default
    assert len(listener.calls) == 1
    await customers.update(OWNER, CUSTOMER, default_payment_method=first.id)
    assert len(listener.calls) == 2


async def test_a_failing_listener_never_fails_the_merchant_request(
    store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    failing = Listener(RuntimeError("core busy"))
    vault = PaymentMethodService(store, Sealer(), FakeClocks())  # type: ignore[arg-type]
    vault.on_default_changed(failing)
    customers = CustomerService(store, FakeClocks())  # type: ignore[arg-type]
    customers.on_default_changed(failing)
    with caplog.at_level(logging.WARNING):
        first = await attach(vault)
        second = await attach(vault)
        updated = await customers.update(OWNER, CUSTOMER, default_payment_method=second.id)
    assert store.customer.default_payment_method == updated.default_payment_method == second.id
    assert first.id != second.id and len(failing.calls) == 2
    assert [r.levelno for r in caplog.records] == [logging.WARNING, logging.WARNING]


async def test_without_a_listener_nothing_is_called(store: Store) -> None:
    vault = PaymentMethodService(store, Sealer(), FakeClocks())  # type: ignore[arg-type]
    method = await attach(vault)
    assert store.customer.default_payment_method == method.id
