"""gRPC status -> HTTP envelope: ErrorInfo decides type/code/param, the type decides the status."""

from __future__ import annotations

import grpc
import pytest

from http_gateway.edge.errors import (
    FALLBACK,
    SPEC_TYPE_TO_HTTP,
    ApiError,
    api_error_from_rpc,
    error_info,
    should_retry,
)
from tests.unit.gateway.gateway_fakes import rpc_error


@pytest.mark.parametrize(
    ("type_", "status"),
    [
        ("invalid_request_error", 400),
        ("authentication_error", 401),
        ("authorization_error", 403),
        ("resource_not_found", 404),
        ("idempotency_error", 409),
        ("rate_limit_error", 429),
        ("api_error", 500),
        ("gateway_error", 502),
    ],
)
def test_every_spec_error_type_has_its_http_status(type_, status):
    assert SPEC_TYPE_TO_HTTP[type_] == status
    err = api_error_from_rpc(rpc_error(grpc.StatusCode.INVALID_ARGUMENT, "m", reason="some_code", type=type_))
    assert err.http_status == status
    assert err.type == type_


def test_error_info_gives_code_param_and_message():
    err = api_error_from_rpc(
        rpc_error(
            grpc.StatusCode.FAILED_PRECONDITION,
            "Refund amount exceeds the remaining amount.",
            reason="refund_exceeds_charge",
            type="invalid_request_error",
            param="amount",
        )
    )
    assert (err.http_status, err.type) == (400, "invalid_request_error")
    assert (err.code, err.param) == ("refund_exceeds_charge", "amount")
    assert err.message == "Refund amount exceeds the remaining amount."


def test_upper_case_reason_is_lowered_and_absent_param_is_null():
    err = api_error_from_rpc(
        rpc_error(
            grpc.StatusCode.NOT_FOUND, "No such charge", reason="RESOURCE_MISSING", type="resource_not_found"
        )
    )
    assert err.code == "resource_missing"
    assert err.param is None
    assert err.http_status == 404


def test_error_info_without_known_type_falls_back_to_the_grpc_code_meaning():
    err = api_error_from_rpc(rpc_error(grpc.StatusCode.UNAUTHENTICATED, "no", reason="api_key_invalid"))
    assert (err.type, err.http_status, err.code) == ("authentication_error", 401, "api_key_invalid")


def test_idempotency_conflict_from_the_core_is_409():
    err = api_error_from_rpc(
        rpc_error(
            grpc.StatusCode.ABORTED, "Key reused", reason="idempotency_key_reused", type="idempotency_error"
        )
    )
    assert (err.http_status, err.type) == (409, "idempotency_error")


@pytest.mark.parametrize(
    ("code", "status", "api_code"),
    [
        (grpc.StatusCode.ABORTED, 503, "service_busy"),
        (grpc.StatusCode.UNAVAILABLE, 503, "service_unavailable"),
        (grpc.StatusCode.DEADLINE_EXCEEDED, 503, "timeout"),
        (grpc.StatusCode.RESOURCE_EXHAUSTED, 503, "service_unavailable"),  # shed for overload
        (grpc.StatusCode.INTERNAL, 500, "internal_error"),
        (grpc.StatusCode.UNKNOWN, 500, "internal_error"),
    ],
)
def test_statuses_without_error_info_use_the_fallback_table(code, status, api_code):
    err = api_error_from_rpc(rpc_error(code, "Traceback (most recent call last): secret internals"))
    assert (err.http_status, err.type, err.code) == (status, "api_error", api_code)
    assert "Traceback" not in err.message


def test_busy_answer_tells_the_client_when_to_retry():
    err = api_error_from_rpc(rpc_error(grpc.StatusCode.ABORTED))
    assert err.headers["Retry-After"] == "1"


def test_retry_policy_only_for_statuses_without_error_info():
    aborted = rpc_error(grpc.StatusCode.ABORTED)
    unavailable = rpc_error(grpc.StatusCode.UNAVAILABLE)
    decided = rpc_error(
        grpc.StatusCode.ABORTED, "reused", reason="idempotency_key_reused", type="idempotency_error"
    )
    assert should_retry(aborted, is_read=False)
    assert should_retry(unavailable, is_read=True)
    assert not should_retry(unavailable, is_read=False)  # a mutation may have committed
    assert not should_retry(decided, is_read=True)
    assert not should_retry(rpc_error(grpc.StatusCode.DEADLINE_EXCEEDED), is_read=True)
    # An overload refusal: nothing ran, but a retry now would only add to the overload.
    assert not should_retry(rpc_error(grpc.StatusCode.RESOURCE_EXHAUSTED), is_read=True)
    codes = grpc.StatusCode
    assert set(FALLBACK) == {
        codes.ABORTED,
        codes.UNAVAILABLE,
        codes.DEADLINE_EXCEEDED,
        codes.RESOURCE_EXHAUSTED,
    }


def test_corrupt_details_trailer_is_ignored():
    err = grpc.aio.AioRpcError(
        grpc.StatusCode.NOT_FOUND,
        grpc.aio.Metadata(),
        grpc.aio.Metadata(("grpc-status-details-bin", b"\xff\xfe not a proto")),
        details="x",
    )
    assert error_info(err) is None
    assert api_error_from_rpc(err).http_status == 500


def test_envelope_has_all_five_fields_and_doc_url():
    body = ApiError.invalid("amount", "Bad amount").envelope("https://api.example.test")
    assert body == {
        "error": {
            "type": "invalid_request_error",
            "code": "parameter_invalid",
            "message": "Bad amount",
            "param": "amount",
            "doc_url": "https://api.example.test/docs/errors#parameter_invalid",
        }
    }


def test_rate_limit_errors_always_carry_retry_after():
    assert ApiError("rate_limit_error", "rate_limit_exceeded", "slow down").headers["Retry-After"] == "1"


def test_a_retryable_core_answer_is_a_warning_with_its_detail(caplog):
    """A failover's UNAVAILABLE is expected: logged as a warning that says why, never as an error."""
    with caplog.at_level("INFO", logger="http_gateway.edge.errors"):
        api_error_from_rpc(
            rpc_error(grpc.StatusCode.UNAVAILABLE, "A dependency is unavailable; retry later.")
        )
        api_error_from_rpc(rpc_error(grpc.StatusCode.INTERNAL, "boom"))
    unavailable, internal = caplog.records
    assert unavailable.levelname == "WARNING"
    assert "UNAVAILABLE" in unavailable.getMessage()
    assert "A dependency is unavailable" in unavailable.getMessage()
    assert "503 service_unavailable" in unavailable.getMessage()
    assert internal.levelname == "ERROR"
