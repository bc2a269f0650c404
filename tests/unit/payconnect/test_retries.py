"""The client's retry rules and back-off (payconnect.retries), and the requester using one key throughout."""

from __future__ import annotations

import httpx
import pytest

from payconnect.errors import APIConnectionError, IdempotencyError, InvalidRequestError, RateLimitError
from payconnect.retries import RetryPolicy
from payconnect.transport import Requester

POLICY = RetryPolicy(max_retries=3, base_delay=0.5, max_delay=8.0)


@pytest.mark.parametrize(
    ("status", "message", "retried"),
    [
        (None, None, True),
        (500, None, True),
        (502, None, True),
        (503, None, True),
        (429, None, True),
        (409, "A request with this Idempotency-Key is still being processed; retry later.", True),
        (409, "Keys for idempotent requests can only be used with the same parameters", False),
        (400, None, False),
        (401, None, False),
        (404, None, False),
    ],
)
def test_what_is_retried(status: int | None, message: str | None, retried: bool) -> None:
    assert POLICY.retryable(status, message) is retried


def test_the_back_off_doubles_up_to_the_cap_with_full_jitter() -> None:
    assert [POLICY.delay(n, rand=lambda: 1.0) for n in (1, 2, 3)] == [0.5, 1.0, 2.0]
    assert RetryPolicy(max_retries=10).delay(9, rand=lambda: 1.0) == 8.0
    assert POLICY.delay(2, rand=lambda: 0.25) == 0.25
    assert POLICY.delay(4, rand=lambda: 1.0) is None  # no retry left


def test_retry_after_is_honoured_unless_too_long() -> None:
    assert POLICY.delay(1, "3", rand=lambda: 1.0) == 3.0
    assert POLICY.delay(1, "0", rand=lambda: 0.5) == 0.25
    assert POLICY.delay(1, "120") is None
    assert POLICY.delay(1, "soon", rand=lambda: 1.0) == 0.5


def requester(handler: httpx.MockTransport, sleeps: list[float]) -> Requester:
    return Requester(
        "sk_test_x",
        "http://api.test",
        policy=RetryPolicy(max_retries=3),
        http_client=httpx.Client(transport=handler),
        sleep=sleeps.append,
    )


def envelope(status: int, type_: str, code: str, message: str = "m") -> httpx.Response:
    body = {"error": {"type": type_, "code": code, "message": message, "param": None, "doc_url": "x"}}
    return httpx.Response(status, json=body)


def test_every_retry_carries_the_first_key_until_success() -> None:
    keys: list[str] = []
    answers = iter(
        [
            envelope(503, "api_error", "service_unavailable"),
            envelope(409, "idempotency_error", "idempotency_key_in_use", "still being processed"),
            httpx.Response(201, json={"id": "ch_1"}),
        ]
    )

    def handle(request: httpx.Request) -> httpx.Response:
        keys.append(request.headers["Idempotency-Key"])
        return next(answers)

    sleeps: list[float] = []
    assert requester(httpx.MockTransport(handle), sleeps).request("POST", "/charges", json={}) == {
        "id": "ch_1"
    }
    assert len(keys) == 3 and len(set(keys)) == 1 and len(sleeps) == 2


def test_errors_are_typed_and_4xx_are_not_retried() -> None:
    calls: list[int] = []

    def handle(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        return envelope(400, "invalid_request_error", "parameter_invalid")

    with pytest.raises(InvalidRequestError) as raised:
        requester(httpx.MockTransport(handle), []).request("POST", "/charges", json={})
    assert raised.value.http_status == 400 and raised.value.code == "parameter_invalid" and len(calls) == 1

    mismatch = httpx.MockTransport(lambda r: envelope(409, "idempotency_error", "idempotency_key_in_use"))
    with pytest.raises(IdempotencyError):
        requester(mismatch, []).request("POST", "/charges", json={})


def test_retries_run_out_into_the_last_error() -> None:
    sleeps: list[float] = []
    limited = httpx.MockTransport(lambda r: envelope(429, "rate_limit_error", "rate_limit_exceeded"))
    with pytest.raises(RateLimitError):
        requester(limited, sleeps).request("GET", "/charges")
    assert len(sleeps) == 3

    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    sleeps.clear()
    with pytest.raises(APIConnectionError):
        requester(httpx.MockTransport(refuse), sleeps).request("GET", "/charges")
    assert len(sleeps) == 3
