"""Schemathesis hooks for the contract run (loaded through SCHEMATHESIS_HOOKS by test_openapi_contract.py).

One extra check on top of the built-in ones: every error answer is the spec's envelope, with the HTTP
status its `type` dictates. The built-in response_schema_conformance only validates statuses the
document lists; this check also covers the ones it does not (405, a 413 from the HTTP layer, …).
"""

from __future__ import annotations

import json
from typing import Any

import schemathesis

ENVELOPE_KEYS = {"type", "code", "message", "param", "doc_url"}
# Spec "Errors" table, plus the gateway's own statuses: 405/413 are request errors, 503 an api_error.
STATUS_OF_TYPE = {
    "invalid_request_error": {400, 405, 413, 431},
    "authentication_error": {401},
    "authorization_error": {403},
    "resource_not_found": {404},
    "idempotency_error": {409},
    "rate_limit_error": {429},
    "api_error": {500, 503},
    "gateway_error": {502},
}
# Answers for people or load balancers rather than API clients: the hosted pages' HTML and /healthz.
HTML_OPERATIONS = {
    "POST /checkout/{charge_id}",
    "GET /checkout/{charge_id}",
    "GET /portal/{token}",
    "GET /portal/{token}/payment-method",
    "POST /portal/{token}/payment-method",
    "GET /portal/{token}/subscriptions/{subscription_id}/cancel",
    "POST /portal/{token}/subscriptions/{subscription_id}/cancel",
    "GET /portal/{token}/invoices/{invoice_id}",
}
# Every operation of the merchant dashboard (docs/dashboard.md) answers people with HTML pages.
DASHBOARD = "/dashboard"
NOT_ERRORS = {"GET /healthz"}


def _header(response: Any, name: str) -> str:
    value = response.headers.get(name) or response.headers.get(name.lower()) or ""
    return value[0] if isinstance(value, list) else str(value)


@schemathesis.check
def error_envelope(ctx: Any, response: Any, case: Any) -> bool | None:
    """Every 4xx/5xx is `{"error": {type, code, message, param, doc_url}}` with the status of its type."""
    status = response.status_code
    label = f"{case.method.upper()} {case.operation.path}"
    if status < 400 or label in NOT_ERRORS:
        return None
    content_type = _header(response, "Content-Type")
    html_page = label in HTML_OPERATIONS or case.operation.path.startswith(DASHBOARD)
    if html_page and content_type.startswith("text/html"):
        return None
    assert content_type.startswith("application/json"), f"{status} answered with {content_type!r}"
    try:
        body = json.loads(response.content)
    except ValueError as exc:
        raise AssertionError(f"{status} body is not JSON: {response.content[:200]!r}") from exc
    assert isinstance(body, dict) and set(body) == {"error"}, f"not the error envelope: {body!r}"
    error = body["error"]
    assert isinstance(error, dict) and set(error) == ENVELOPE_KEYS, f"envelope fields: {sorted(error)}"
    assert all(isinstance(error[k], str) for k in ("type", "code", "message", "doc_url")), error
    assert error["param"] is None or isinstance(error["param"], str), error
    assert status in STATUS_OF_TYPE.get(error["type"], set()), f"{status} with type {error['type']!r}"
    assert _header(response, "Request-Id"), "error without a Request-Id header"
    return None
