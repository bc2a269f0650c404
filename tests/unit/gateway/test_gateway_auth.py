"""Dashboard JWTs are verified locally; API keys are parsed here and resolved by the core."""

from __future__ import annotations

import base64
import json
import time
from types import SimpleNamespace
from typing import Any

import jwt
import pytest
from connect import errors
from connect.v1 import api_key_pb2, common_pb2

from http_gateway.edge.errors import ApiError
from http_gateway.pipeline.auth import (
    ApiCaller,
    api_key_request,
    bearer_token,
    require_secret_key,
    require_test_key,
    token_revoked,
    verify_dashboard_claims,
    verify_dashboard_token,
)

KEY = "dashboard-signing-key-for-tests-0123456789"


def _token(**overrides) -> str:
    now = int(time.time())
    claims = {"sub": "acct_1", "iat": now, "exp": now + 3600, "iss": "payment-connect", "typ": "merchant"}
    claims.update(overrides)
    claims = {k: v for k, v in claims.items() if v is not None}
    return jwt.encode(claims, KEY, algorithm="HS256")


def _error(fn, *args, **kwargs) -> ApiError:
    with pytest.raises(ApiError) as caught:
        fn(*args, **kwargs)
    return caught.value


def test_a_valid_token_gives_the_merchant():
    assert verify_dashboard_token(_token(), KEY) == "acct_1"


def test_expired_token():
    now = int(time.time())
    err = _error(verify_dashboard_token, _token(iat=now - 7200, exp=now - 3600), KEY)
    assert (err.http_status, err.type, err.code) == (401, "authentication_error", "token_expired")


@pytest.mark.parametrize(
    "token",
    [
        _token(iss="someone-else"),
        _token(typ="customer"),
        _token(sub=None),
        _token(iat=None),
        _token(exp=None),
        _token(typ=None),
        jwt.encode({"sub": "acct_1"}, "another-key-entirely-0123456789abcdef", algorithm="HS256"),
        "not.a.jwt",
    ],
)
def test_invalid_tokens_are_401_token_invalid(token):
    err = _error(verify_dashboard_token, token, KEY)
    assert (err.http_status, err.code) == (401, "token_invalid")


def _b64(obj: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(obj).encode()).rstrip(b"=").decode()


def test_alg_none_is_refused():
    header = _b64({"alg": "none", "typ": "JWT"})
    now = int(time.time())
    body = {"sub": "acct_1", "iat": now, "exp": now + 60, "iss": "payment-connect", "typ": "merchant"}
    payload = _b64(body)
    assert _error(verify_dashboard_token, f"{header}.{payload}.", KEY).code == "token_invalid"


def test_tampered_payload_is_refused():
    head, _, sig = _token().split(".")
    now = int(time.time())
    evil = {"sub": "acct_victim", "iat": now, "exp": now + 60, "iss": "payment-connect", "typ": "merchant"}
    payload = _b64(evil)
    assert _error(verify_dashboard_token, f"{head}.{payload}.{sig}", KEY).code == "token_invalid"


def test_an_api_key_on_a_jwt_route_is_401():
    assert _error(verify_dashboard_token, "sk_test_" + "a" * 32, KEY).http_status == 401


def test_a_jwt_on_an_api_key_route_is_401_without_asking_the_core():
    err = _error(api_key_request, _token())
    assert (err.http_status, err.code) == (401, "api_key_invalid")


def test_key_lookup_sends_the_whole_key():
    assert api_key_request("sk_live_abc").key == "sk_live_abc"


def _request(authorization: str | None) -> Any:  # a Request stand-in
    headers = {} if authorization is None else {"authorization": authorization}
    return SimpleNamespace(headers=headers)


@pytest.mark.parametrize(
    ("header", "code"),
    [
        (None, "api_key_missing"),
        ("", "api_key_missing"),
        ("Basic abc", "api_key_invalid"),
        ("Bearer", "api_key_invalid"),
    ],
)
def test_missing_or_malformed_authorization(header, code):
    codes = {"missing": errors.API_KEY_MISSING, "invalid": errors.API_KEY_INVALID}
    err = _error(bearer_token, _request(header), **codes)
    assert (err.http_status, err.type, err.code) == (401, "authentication_error", code)


def test_bearer_scheme_is_case_insensitive():
    assert (
        bearer_token(
            _request("bearer sk_test_x"), missing=errors.API_KEY_MISSING, invalid=errors.API_KEY_INVALID
        )
        == "sk_test_x"
    )


def test_error_messages_never_echo_the_credential():
    err = _error(api_key_request, "garbage-secret-value")
    assert "garbage-secret-value" not in err.message


def test_publishable_keys_are_403_on_merchant_operations():
    caller = ApiCaller("acct_1", common_pb2.ENVIRONMENT_TEST, api_key_pb2.API_KEY_KIND_PUBLISHABLE)
    err = _error(require_secret_key, caller)
    assert (err.http_status, err.type, err.code) == (403, "authorization_error", "secret_key_required")


def test_test_helpers_need_a_test_key():
    live = ApiCaller("acct_1", common_pb2.ENVIRONMENT_LIVE, api_key_pb2.API_KEY_KIND_SECRET)
    assert _error(require_test_key, live).http_status == 403
    require_test_key(ApiCaller("acct_1", common_pb2.ENVIRONMENT_TEST, api_key_pb2.API_KEY_KIND_SECRET))


def test_idempotency_scope_is_merchant_and_environment():
    caller = ApiCaller("acct_1", common_pb2.ENVIRONMENT_LIVE, api_key_pb2.API_KEY_KIND_SECRET)
    assert caller.scope == "acct_1:live"


def test_the_token_version_is_read_from_claim_ver_and_absent_means_0():
    """DESIGN §10.9: tokens carry the merchant's token version; ones issued before versions are 0."""
    assert verify_dashboard_claims(_token(ver=3), KEY) == ("acct_1", 3)
    assert verify_dashboard_claims(_token(), KEY) == ("acct_1", 0)


@pytest.mark.parametrize("bad", [-1, "2", 1.5, True])
def test_a_malformed_token_version_is_an_invalid_token(bad):
    assert _error(verify_dashboard_claims, _token(ver=bad), KEY).code == errors.TOKEN_INVALID.code


def test_a_token_older_than_the_merchants_version_is_revoked():
    assert token_revoked(0, 1) and token_revoked(2, 5)
    assert not token_revoked(1, 1) and not token_revoked(0, 0)
