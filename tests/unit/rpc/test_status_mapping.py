"""core_server/rpc/status.py: every error a servicer can raise, as the gRPC status the gateway receives.

Each case runs through the `rpc` decorator with a fake ServicerContext whose `abort` raises, the way
grpc.aio's does, and reads back the code, the message and the `google.rpc.Status` details.
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
import pkgutil
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2

import core_server
from core_server.actors import ActorStopped, EntityBusy, LeaseLost, TurnInterrupted
from core_server.db.errors import StaleFence, StorageUnavailable
from core_server.kernel.domain import errors
from core_server.kernel.domain.errors import DomainError, StateConflict
from core_server.kernel.domain.replays import ReplayedError, StoredError
from core_server.locking.errors import LockServiceUnavailable
from core_server.rpc.status import DETAILS_KEY, ERROR_DOMAIN, UNAVAILABLE_ERRORS, rpc
from core_server.security.kdf_pool import KdfPoolSaturated

# The spec's error types and the gRPC code each travels as (the gateway maps codes back to HTTP).
CODE_OF_TYPE = {
    "invalid_request_error": grpc.StatusCode.INVALID_ARGUMENT,
    "authentication_error": grpc.StatusCode.UNAUTHENTICATED,
    "authorization_error": grpc.StatusCode.PERMISSION_DENIED,
    "resource_not_found": grpc.StatusCode.NOT_FOUND,
    "idempotency_error": grpc.StatusCode.ABORTED,
    "rate_limit_error": grpc.StatusCode.RESOURCE_EXHAUSTED,
    "api_error": grpc.StatusCode.INTERNAL,
    "gateway_error": grpc.StatusCode.UNAVAILABLE,
}


class Aborted(Exception):
    """What the fake context's `abort` raises, carrying what the wrapper handed it."""

    def __init__(self, code: grpc.StatusCode, message: str, trailing: tuple[tuple[str, Any], ...]) -> None:
        super().__init__(code, message)
        self.code = code
        self.message = message
        self.trailing = dict(trailing)


class FakeContext:
    """The part of grpc.aio.ServicerContext that the `rpc` wrapper uses."""

    def __init__(self) -> None:
        self.aborts = 0

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return (("x-request-id", "req_test"),)

    def set_trailing_metadata(self, metadata: tuple[tuple[str, str], ...]) -> None:
        pass

    async def abort(
        self, code: grpc.StatusCode, details: str = "", trailing_metadata: tuple[tuple[str, Any], ...] = ()
    ) -> None:
        self.aborts += 1
        raise Aborted(code, details, trailing_metadata)


class Raising:
    def __init__(self, error: BaseException) -> None:
        self.error = error

    @rpc
    async def Call(self, request: object, context: Any) -> str:
        raise self.error


async def abort_of(error: BaseException) -> Aborted:
    context = FakeContext()
    with pytest.raises(Aborted) as aborted:
        await Raising(error).Call(object(), context)
    assert context.aborts == 1
    return aborted.value


def error_info(aborted: Aborted) -> tuple[status_pb2.Status, error_details_pb2.ErrorInfo]:
    status = status_pb2.Status.FromString(aborted.trailing[DETAILS_KEY])
    # One ErrorInfo first; a rate limit adds a RetryInfo after it (test_retry_after_from_core.py).
    assert len(status.details) == 1 or status.details[1].Is(error_details_pb2.RetryInfo.DESCRIPTOR)
    info = error_details_pb2.ErrorInfo()
    assert status.details[0].Unpack(info)
    return status, info


def all_subclasses(cls: type[DomainError]) -> Iterator[type[DomainError]]:
    for sub in cls.__subclasses__():
        yield sub
        yield from all_subclasses(sub)


def domain_error_classes() -> list[type[DomainError]]:
    """Every DomainError subclass of the core: each context's domain and application are imported
    first, so a subclass defined in any of them (or in a context added later) is found."""
    for context in pkgutil.iter_modules(core_server.__path__):
        for layer in ("domain", "application"):
            name = f"{core_server.__name__}.{context.name}.{layer}"
            if not context.ispkg or importlib.util.find_spec(name) is None:
                continue
            package = importlib.import_module(name)
            for module in pkgutil.walk_packages(package.__path__, prefix=f"{name}."):
                importlib.import_module(module.name)
    found = {cls for cls in all_subclasses(DomainError) if cls.__module__.startswith("core_server.")}
    return sorted(found | {DomainError}, key=lambda cls: f"{cls.__module__}.{cls.__qualname__}")


DOMAIN_ERRORS = domain_error_classes()


def instance_of(cls: type[DomainError]) -> DomainError:
    """One instance per class; a new subclass with its own constructor needs a line here."""
    if issubclass(cls, errors.ParameterMissing):
        return cls("amount")  # ParameterMissing takes the param alone
    if issubclass(cls, errors.RateLimited):
        return cls("A message the merchant may read.", timedelta(seconds=3), param="amount")
    if issubclass(cls, ReplayedError):
        return cls(StoredError(type="invalid_request_error", code="invalid_state", message="M.", param="id"))
    return cls("A message the merchant may read.", param="amount")


def test_discovery_finds_the_kernel_tree_and_the_replayed_error() -> None:
    known = {
        DomainError,
        errors.InvalidRequest,
        errors.ParameterMissing,
        errors.ParameterInvalid,
        errors.StateConflict,
        errors.NotFound,
        errors.Unauthenticated,
        errors.Forbidden,
        errors.IdempotencyConflict,
        errors.RateLimited,
        errors.ProcessorUnavailable,
        ReplayedError,
    }
    assert known <= set(DOMAIN_ERRORS)


@pytest.mark.parametrize("cls", DOMAIN_ERRORS, ids=lambda cls: cls.__qualname__)
async def test_every_domain_error_maps_to_its_code_with_error_info(cls: type[DomainError]) -> None:
    error = instance_of(cls)
    aborted = await abort_of(error)

    expected = CODE_OF_TYPE[error.type]
    if isinstance(error, StateConflict):
        expected = grpc.StatusCode.FAILED_PRECONDITION
    assert aborted.code is expected
    assert aborted.message == error.message
    status, info = error_info(aborted)
    assert status.code == expected.value[0]
    assert status.message == error.message
    assert info.reason == error.code
    assert info.domain == ERROR_DOMAIN
    assert dict(info.metadata) == {"type": error.type, "param": error.param}


async def test_a_domain_error_without_a_param_carries_only_its_type() -> None:
    _, info = error_info(await abort_of(errors.Unauthenticated("Invalid API key provided.")))
    assert dict(info.metadata) == {"type": "authentication_error"}
    assert info.reason == "authentication_failed"


async def test_a_custom_code_is_the_reason() -> None:
    error = errors.ParameterInvalid(
        "Amount must be at least 50 cents.", code="amount_too_small", param="amount"
    )
    aborted = await abort_of(error)
    assert aborted.code is grpc.StatusCode.INVALID_ARGUMENT
    assert error_info(aborted)[1].reason == "amount_too_small"


@pytest.mark.parametrize("error_type", sorted(CODE_OF_TYPE))
async def test_a_replayed_error_answers_as_its_stored_type(error_type: str) -> None:
    stored = StoredError(type=error_type, code="some_code", message="First answer.", param=None)
    aborted = await abort_of(ReplayedError(stored))
    assert aborted.code is CODE_OF_TYPE[error_type]
    _, info = error_info(aborted)
    assert info.reason == "some_code"
    assert dict(info.metadata) == {"type": error_type}


def test_state_conflict_is_a_subclass_the_table_would_otherwise_call_invalid_argument() -> None:
    # FAILED_PRECONDITION comes from the isinstance check, not from the type table.
    assert StateConflict("x").type == "invalid_request_error"


async def test_state_conflict_is_failed_precondition() -> None:
    error = StateConflict("This charge can no longer be captured.", code="charge_expired")
    aborted = await abort_of(error)
    assert aborted.code is grpc.StatusCode.FAILED_PRECONDITION
    assert error_info(aborted)[1].reason == "charge_expired"


async def test_entity_busy_is_aborted_without_details() -> None:
    aborted = await abort_of(EntityBusy("ch_1", "lease held elsewhere"))
    assert aborted.code is grpc.StatusCode.ABORTED
    assert aborted.trailing == {}
    assert "ch_1" not in aborted.message


UNAVAILABLE_CASES: list[BaseException] = [
    ActorStopped("ch_1", "stopping"),
    LeaseLost("ch_1", "lease renewal failed"),
    TurnInterrupted("ch_1", "hard stop"),
    StaleFence("fence 7 is stale"),
    StorageUnavailable("connection refused to 10.0.0.5"),
    LockServiceUnavailable("redis call on pc:lease:charge:ch_1 failed: ConnectionError"),
    KdfPoolSaturated("2 KDF workers busy and 8 waiting"),
    TimeoutError(),
]


def test_the_unavailable_cases_cover_the_table() -> None:
    assert {type(error) for error in UNAVAILABLE_CASES} == set(UNAVAILABLE_ERRORS)


@pytest.mark.parametrize("error", UNAVAILABLE_CASES, ids=lambda error: type(error).__name__)
async def test_every_unavailable_error_is_unavailable_without_details(error: BaseException) -> None:
    aborted = await abort_of(error)
    assert aborted.code is grpc.StatusCode.UNAVAILABLE
    assert aborted.trailing == {}
    assert str(error) == "" or str(error) not in aborted.message


@pytest.mark.parametrize(
    "error",
    [
        RuntimeError("sk_live_4eC39HqLyjWDarjtT1zdp7dc in a stack we did not expect"),
        KeyError("secret_sealed"),
        ValueError("postgresql://admin:hunter2@db.internal/payments"),
    ],
    ids=lambda error: type(error).__name__,
)
async def test_an_unexpected_exception_is_internal_and_leaks_nothing(error: Exception) -> None:
    aborted = await abort_of(error)
    assert aborted.code is grpc.StatusCode.INTERNAL
    assert aborted.message == "Internal error."
    assert aborted.trailing == {}


async def test_cancellation_is_not_turned_into_a_status() -> None:
    context = FakeContext()
    with pytest.raises(asyncio.CancelledError):
        await Raising(asyncio.CancelledError()).Call(object(), context)
    assert context.aborts == 0


async def test_a_result_is_returned_without_abort() -> None:
    class Answering:
        @rpc
        async def Call(self, request: object, context: Any) -> str:
            return "ok"

    context = FakeContext()
    assert await Answering().Call(object(), context) == "ok"
    assert context.aborts == 0


class Answering:
    @rpc
    async def Answered(self, request: object, context: Any) -> str:
        return "ok"


async def test_every_successful_call_is_timed_in_its_method_series() -> None:
    """The OK series is labelled once per method and kept (not looked up per call); each call counts."""
    from core_server.metrics import REGISTRY

    labels = {"method": "Answered", "code": "OK"}
    before = REGISTRY.get_sample_value("core_rpc_duration_seconds_count", labels) or 0.0
    for _ in range(3):
        assert await Answering().Answered(object(), FakeContext()) == "ok"
    assert REGISTRY.get_sample_value("core_rpc_duration_seconds_count", labels) == before + 3
