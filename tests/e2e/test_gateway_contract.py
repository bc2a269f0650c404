"""Gateway-wide rules: error envelope for bad input, rate limits, versions and request ids."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from tests.e2e.api_client import API, assert_error, sign_up

pytestmark = pytest.mark.e2e

GOOD = {"amount": 1000, "currency": "usd", "return_url": "https://shop.example/ok"}


@pytest.mark.parametrize(
    ("body", "code", "param"),
    [
        ({**GOOD, "amount": -100}, "amount_too_small", "amount"),
        ({**GOOD, "amount": 49}, "amount_too_small", "amount"),
        ({**GOOD, "amount": 100_000_000}, "amount_too_large", "amount"),
        ({**GOOD, "amount": 10.5}, "parameter_invalid", "amount"),
        ({**GOOD, "amount": "1000"}, "parameter_invalid", "amount"),
        ({**GOOD, "amount": True}, "parameter_invalid", "amount"),
        ({**GOOD, "currency": "xyz"}, "currency_unsupported", "currency"),
        ({**GOOD, "currency": 5}, "parameter_invalid", "currency"),
        ({**GOOD, "description": "d" * 501}, "parameter_invalid", "description"),
        ({**GOOD, "return_url": "ftp://x"}, "parameter_invalid", "return_url"),
        ({**GOOD, "return_url": "https://x.example/" + "a" * 500}, "parameter_invalid", "return_url"),
        ({**GOOD, "metadata": {"k": 5}}, "parameter_invalid", None),
        ({**GOOD, "metadata": {f"k{i}": "v" for i in range(51)}}, "parameter_invalid", "metadata"),
        ({**GOOD, "surprise": 1}, "parameter_invalid", "surprise"),
        ({"currency": "usd", "return_url": "https://x.example"}, "parameter_missing", "amount"),
        ({"amount": 1000, "return_url": "https://x.example"}, "parameter_missing", "currency"),
    ],
)
def test_bad_create_bodies_get_the_envelope_and_change_nothing(
    client: httpx.Client, body: dict, code: str, param: str | None
) -> None:
    merchant = sign_up(client)
    response = client.post(f"{API}/charges", json=body, headers=merchant.auth)
    error = assert_error(response, 400, "invalid_request_error", code)
    if param is not None:
        assert error["param"] == param
    assert client.get(f"{API}/charges", headers=merchant.auth).json()["total_count"] == 0


@pytest.mark.parametrize("raw", [b"{not json", b"[1, 2]", b"\xff\xfe", b'"text"'])
def test_unparseable_bodies(client: httpx.Client, raw: bytes) -> None:
    merchant = sign_up(client)
    response = client.post(
        f"{API}/charges", content=raw, headers={**merchant.auth, "Content-Type": "application/json"}
    )
    assert_error(response, 400, "invalid_request_error")


@pytest.mark.parametrize(
    "params",
    [
        {"limit": "ten"},
        {"created_after": "yesterday"},
        {"status": "lost"},
        {"limit": "0"},
        {"created_before": "-5"},
    ],
)
def test_bad_list_queries(client: httpx.Client, params: dict) -> None:
    merchant = sign_up(client)
    error = assert_error(
        client.get(f"{API}/charges", params=params, headers=merchant.auth), 400, "invalid_request_error"
    )
    assert error["param"] == next(iter(params))


def test_rate_limit_headers_and_429(client: httpx.Client) -> None:
    merchant = sign_up(client)

    async def burst() -> list[httpx.Response]:
        # Concurrent, so the burst lands inside one or two one-second windows however slow the machine is.
        async with httpx.AsyncClient(base_url=client.base_url, timeout=15.0) as http:
            return list(
                await asyncio.gather(*(http.get(f"{API}/charges", headers=merchant.auth) for _ in range(80)))
            )

    responses = asyncio.run(burst())
    for response in responses:
        assert response.headers["X-RateLimit-Limit"] == "25"
        assert int(response.headers["X-RateLimit-Remaining"]) >= 0
        assert int(response.headers["X-RateLimit-Reset"]) > 0
    limited = [r for r in responses if r.status_code == 429]
    assert limited, "80 concurrent requests never hit the 25/s test limit"
    assert_error(limited[0], 429, "rate_limit_error")
    assert int(limited[0].headers["Retry-After"]) >= 1
    assert sum(r.status_code == 200 for r in responses) <= 50  # at most two windows' worth


def test_service_version_and_request_id(client: httpx.Client, gateway_log: tuple) -> None:
    merchant = sign_up(client)
    plain = client.get(f"{API}/charges", headers=merchant.auth)
    assert plain.headers["Service-Version"]
    echoed = client.get(
        f"{API}/charges", headers={**merchant.auth, "Service-Version": plain.headers["Service-Version"]}
    )
    assert echoed.headers["Service-Version"] == plain.headers["Service-Version"]
    bad = client.get(f"{API}/charges", headers={**merchant.auth, "Service-Version": "1999-01-01"})
    assert_error(bad, 400, "invalid_request_error", "api_version_invalid")
    created = client.post(f"{API}/charges", json=GOOD, headers=merchant.auth)
    request_id = created.headers["Request-Id"]
    assert request_id.startswith("req_") and plain.headers["Request-Id"] != request_id
    # The gateway writes the one access line of every request; the core logs the calls that failed (or
    # were slow) with the same request id, so one the core answered NOT_FOUND is in both logs.
    missing = client.get(f"{API}/charges/ch_{'x' * 32}", headers=merchant.auth)
    assert missing.status_code == 404, missing.text
    missing_id = missing.headers["Request-Id"]
    gateway, core = gateway_log
    gateway.log_with(request_id)
    gateway.log_with(missing_id)
    core.log_with(missing_id)


def test_unknown_route_is_enveloped_404(client: httpx.Client) -> None:
    assert_error(client.get("/api/v1/connect/nothing-here"), 404, "resource_not_found")
