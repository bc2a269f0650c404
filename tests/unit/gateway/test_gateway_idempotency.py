"""Idempotency-Key syntax and the request fingerprint."""

from __future__ import annotations

import hashlib
from types import SimpleNamespace
from typing import Any

import pytest

from http_gateway.edge.errors import ApiError
from http_gateway.pipeline.idempotency import canonical_path, fingerprint, idempotency_for


@pytest.mark.parametrize(
    "path",
    ["/api/v1/connect/charges/ch_x/capture", "/connect/v1/charges/ch_x/capture", "/v1/charges/ch_x/capture"],
)
def test_all_address_styles_share_one_canonical_path(path):
    assert canonical_path(path) == "/charges/ch_x/capture"


def test_other_paths_keep_their_shape():
    assert canonical_path("/api/v1/merchants") == "/merchants"
    assert canonical_path("/api/v1/checkout/ch_1/complete") == "/checkout/ch_1/complete"
    assert canonical_path("/checkout/ch_1/complete") == "/checkout/ch_1/complete"
    assert canonical_path("/v1x/charges") == "/v1x/charges"


def test_fingerprint_is_sha256_of_path_newline_body():
    expected = hashlib.sha256(b'/charges\n{"amount":5000}').hexdigest()
    assert fingerprint("/api/v1/connect/charges", b'{"amount":5000}') == expected
    assert fingerprint("/v1/charges", b'{"amount":5000}') == expected
    assert fingerprint("/v1/charges", b'{"amount":5001}') != expected


def test_the_query_string_is_part_of_the_request() -> None:
    """A reused key on `?at_period_end=true` then `=false` is another request; parameter order is not."""
    path = "/v1/subscriptions/sub_x/cancel"
    assert fingerprint(path, b"", "") == fingerprint(path, b"")
    assert fingerprint(path, b"", "at_period_end=true") != fingerprint(path, b"", "at_period_end=false")
    assert fingerprint(path, b"", "a=1&b=2") == fingerprint(path, b"", "b=2&a=1")
    assert fingerprint(path, b"", "at_period_end=true") != fingerprint(path, b"")


def _request(key: str | None, path: str = "/v1/charges", body: bytes = b"{}") -> Any:  # a Request stand-in
    headers = {} if key is None else {"Idempotency-Key": key}
    return SimpleNamespace(headers=headers, path=path, body=body, query_string="")


def test_no_key_gives_an_empty_idempotency():
    assert idempotency_for(_request(None)).key == ""


def test_key_and_fingerprint_are_sent():
    idem = idempotency_for(_request("order-42"))
    assert idem.key == "order-42"
    assert idem.fingerprint == fingerprint("/v1/charges", b"{}")


def test_a_key_of_100_characters_is_fine_but_101_is_refused():
    assert idempotency_for(_request("k" * 100)).key == "k" * 100
    with pytest.raises(ApiError) as caught:
        idempotency_for(_request("k" * 101))
    err = caught.value
    assert (err.http_status, err.code, err.param) == (400, "parameter_invalid", "Idempotency-Key")
