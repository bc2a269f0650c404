"""Edge syntax checks: JSON bodies and query strings -> typed values or parameter_missing/_invalid."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from http_gateway.edge.errors import ApiError
from http_gateway.edge.validation import Field, check_value, parse_json_object, validate_fields
from http_gateway.payments.charges import CREATE_FIELDS

VALID = {"amount": 5000, "currency": "usd", "return_url": "https://shop.example/ok"}


def _body(raw: bytes) -> Any:  # a Request stand-in
    return SimpleNamespace(body=raw)


def _error(fn, *args, **kwargs) -> ApiError:
    with pytest.raises(ApiError) as caught:
        fn(*args, **kwargs)
    return caught.value


def test_a_valid_create_body_is_returned_by_canonical_names():
    sent = {**VALID, "cancelUrl": "https://shop.example/no", "metadata": {"order": "1"}}
    body = validate_fields(sent, CREATE_FIELDS)
    assert body == {**VALID, "cancel_url": "https://shop.example/no", "metadata": {"order": "1"}}


@pytest.mark.parametrize("spelling", ["returnUrl", "return_url"])
def test_both_spellings_of_return_url_are_accepted(spelling):
    body = {"amount": 5000, "currency": "usd", spelling: "https://x.example"}
    assert validate_fields(body, CREATE_FIELDS)["return_url"] == "https://x.example"


def test_both_spellings_at_once_is_refused():
    err = _error(validate_fields, {**VALID, "returnUrl": "https://y.example"}, CREATE_FIELDS)
    assert (err.code, err.param) == ("parameter_invalid", "returnUrl")


@pytest.mark.parametrize("missing", ["amount", "currency", "return_url"])
def test_missing_required_parameters(missing):
    body = {k: v for k, v in VALID.items() if k != missing}
    err = _error(validate_fields, body, CREATE_FIELDS)
    assert (err.http_status, err.type) == (400, "invalid_request_error")
    assert (err.code, err.param) == ("parameter_missing", missing)


def test_null_counts_as_missing_for_required_fields():
    err = _error(validate_fields, {**VALID, "amount": None}, CREATE_FIELDS)
    assert (err.code, err.param) == ("parameter_missing", "amount")


def test_unknown_fields_are_named():
    err = _error(validate_fields, {**VALID, "amuont": 1}, CREATE_FIELDS)
    assert (err.code, err.param) == ("parameter_invalid", "amuont")


@pytest.mark.parametrize("amount", [True, 50.0, "5000", 1e3, [5000], {"v": 1}])
def test_amount_must_be_a_json_integer(amount):
    err = _error(validate_fields, {**VALID, "amount": amount}, CREATE_FIELDS)
    assert (err.code, err.param) == ("parameter_invalid", "amount")


@pytest.mark.parametrize("amount", [2**63, -(2**63) - 1])
def test_integers_beyond_int64_are_refused(amount):
    assert _error(check_value, amount, "int", "amount").param == "amount"


def test_int32_fields_have_int32_bounds():
    assert check_value(2**31 - 1, "int32", "x") == 2**31 - 1
    assert _error(check_value, 2**31, "int32", "x").code == "parameter_invalid"


def test_business_limits_are_left_to_the_core():
    # amount 1 and an odd currency are syntactically fine: the core answers amount_too_small etc.
    assert validate_fields({**VALID, "amount": 1, "currency": "xyz"}, CREATE_FIELDS)["amount"] == 1


@pytest.mark.parametrize("value", [1, ["a"], {"a": "b"}])
def test_currency_must_be_a_string(value):
    err = _error(validate_fields, {**VALID, "currency": value}, CREATE_FIELDS)
    assert err.param == "currency"


def test_metadata_values_must_be_strings():
    err = _error(validate_fields, {**VALID, "metadata": {"ok": "1", "n": 2}}, CREATE_FIELDS)
    assert (err.code, err.param) == ("parameter_invalid", "metadata[n]")


def test_metadata_must_be_an_object():
    assert _error(validate_fields, {**VALID, "metadata": ["a"]}, CREATE_FIELDS).param == "metadata"


def test_oversize_strings_are_refused_at_the_edge():
    err = _error(validate_fields, {**VALID, "description": "x" * 5001}, CREATE_FIELDS)
    assert (err.code, err.param) == ("parameter_invalid", "description")


@pytest.mark.parametrize("text", ["a\x00b", "\ud800"])
def test_strings_that_storage_cannot_hold_are_refused(text):
    assert _error(validate_fields, {**VALID, "description": text}, CREATE_FIELDS).param == "description"


def test_nested_param_names_carry_the_prefix():
    fields = (Field("exp_month", "int32", aliases=("expMonth",)),)
    err = _error(validate_fields, {"expMonth": "12"}, fields, prefix="paymentMethodDetails.")
    assert err.param == "paymentMethodDetails.expMonth"


@pytest.mark.parametrize(
    ("raw", "param"),
    [
        (b"{not json", None),
        (b"[1, 2]", "body"),
        (b'"text"', "body"),
        (b"\xff\xfe{}", None),
        (b'{"amount": NaN}', None),
        (b"[" * 100_000, None),
    ],
)
def test_body_must_be_a_utf8_json_object(raw, param):
    err = _error(parse_json_object, _body(raw))
    assert (err.http_status, err.code, err.param) == (400, "parameter_invalid", param)


def test_empty_body_is_an_empty_object():
    assert parse_json_object(_body(b"")) == {}


@pytest.mark.parametrize("raw", [b"\r", b"  \n", b"\t"])
def test_whitespace_alone_is_not_an_empty_body(raw):
    err = _error(parse_json_object, _body(raw))
    assert (err.http_status, err.code, err.param) == (400, "parameter_invalid", None)


def test_body_over_the_size_limit_is_413():
    assert _error(parse_json_object, _body(b" " * 1_000_001)).http_status == 413
