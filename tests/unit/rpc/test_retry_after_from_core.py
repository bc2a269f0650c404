"""A core RateLimited error reaches the client as Retry-After: the core packs google.rpc.RetryInfo beside
the ErrorInfo (core_server/rpc/status.py), the gateway answers it in whole seconds, rounded up."""

from __future__ import annotations

from datetime import timedelta

import grpc
import pytest
from connect import errors

from core_server.kernel.domain.errors import RateLimited, Unauthenticated
from core_server.rpc.status import DETAILS_KEY, domain_status
from http_gateway.edge.errors import api_error_from_rpc


def _through_grpc(error: Exception) -> grpc.aio.AioRpcError:
    assert isinstance(error, RateLimited | Unauthenticated)
    code, details = domain_status(error)
    return grpc.aio.AioRpcError(
        code=code,
        initial_metadata=grpc.aio.Metadata(),
        trailing_metadata=grpc.aio.Metadata((DETAILS_KEY, details)),
        details=error.message,
    )


@pytest.mark.parametrize(("wait", "header"), [(timedelta(seconds=90), "90"), (timedelta(seconds=1.2), "2")])
def test_the_core_retry_delay_becomes_retry_after(wait: timedelta, header: str) -> None:
    error = RateLimited("slow down", wait, code=errors.LOGIN_THROTTLED.code)
    answered = api_error_from_rpc(_through_grpc(error))
    assert (answered.http_status, answered.type, answered.code) == (
        429,
        "rate_limit_error",
        "login_throttled",
    )
    assert answered.headers["Retry-After"] == header


def test_other_errors_carry_no_retry_after() -> None:
    answered = api_error_from_rpc(_through_grpc(Unauthenticated("no")))
    assert "Retry-After" not in answered.headers
