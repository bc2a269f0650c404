"""The error catalogue of the connect.v1 contract: every error type with its HTTP status, every error code
with its type and default message — the one list the core and the gateway both use.

Hand-written (the only module under protos/ that scripts/gen_protos.py does not write), and stdlib only,
so the core's pure domain rules may name their codes from it. The core raises domain errors with these
codes and sends the type and code in the gRPC ErrorInfo; the gateway answers the type's HTTP status
(or the code's own, for the few HTTP-level codes) in the spec's error envelope.

A new code is added here first; tests hold that every code the core or the gateway uses is listed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

# Spec "Errors" table: the error types and their HTTP status.
INVALID_REQUEST = "invalid_request_error"
AUTHENTICATION = "authentication_error"
AUTHORIZATION = "authorization_error"
NOT_FOUND = "resource_not_found"
IDEMPOTENCY = "idempotency_error"
RATE_LIMIT = "rate_limit_error"
API = "api_error"
GATEWAY = "gateway_error"

TYPE_HTTP_STATUS: Mapping[str, int] = {
    INVALID_REQUEST: 400,
    AUTHENTICATION: 401,
    AUTHORIZATION: 403,
    NOT_FOUND: 404,
    IDEMPOTENCY: 409,
    RATE_LIMIT: 429,
    API: 500,
    GATEWAY: 502,
}


@dataclass(frozen=True, slots=True)
class ErrorCode:
    """One error code: its type, the message shown when the raiser has nothing more specific, and, for
    the HTTP-level codes only, a status other than its type's."""

    code: str
    type: str
    message: str
    http_status: int | None = None

    @property
    def status(self) -> int:
        return self.http_status or TYPE_HTTP_STATUS[self.type]


def _code(code: str, type_: str, message: str, http_status: int | None = None) -> ErrorCode:
    return ErrorCode(code, type_, message, http_status)


# invalid_request_error: the request is wrong; nothing changed.
PARAMETER_MISSING = _code("parameter_missing", INVALID_REQUEST, "A required parameter is missing.")
PARAMETER_INVALID = _code("parameter_invalid", INVALID_REQUEST, "A parameter is invalid.")
AMOUNT_TOO_SMALL = _code("amount_too_small", INVALID_REQUEST, "The amount is below the minimum.")
AMOUNT_TOO_LARGE = _code("amount_too_large", INVALID_REQUEST, "The amount is above the maximum.")
CURRENCY_UNSUPPORTED = _code("currency_unsupported", INVALID_REQUEST, "The currency is not supported.")
INVALID_STATE = _code("invalid_state", INVALID_REQUEST, "The object's state does not allow this request.")
CHARGE_EXPIRED = _code("charge_expired", INVALID_REQUEST, "This checkout session has expired.")
CHARGE_ALREADY_CAPTURED = _code("charge_already_captured", INVALID_REQUEST, "The charge is already captured.")
CHARGE_ALREADY_REFUNDED = _code("charge_already_refunded", INVALID_REQUEST, "The charge is already refunded.")
REFUND_EXCEEDS_CHARGE = _code("refund_exceeds_charge", INVALID_REQUEST, "The refund exceeds what is left.")
PROCESSING_ERROR = _code("processing_error", INVALID_REQUEST, "The payment could not be processed.")
# A card's answer (spec "Sandbox test cards"): a result of the payment, not an error of the request. Each
# code's one sentence is the core's (core_server/payments/domain/payment.py `DECLINE_MESSAGES`), carried
# with it to the API's `errorMessage` and the hosted pages (docs/decisions.md).
DECLINE_CODES: frozenset[str] = frozenset(
    {
        "generic_decline",
        "insufficient_funds",
        "expired_card",
        "incorrect_cvc",
        PROCESSING_ERROR.code,
        "authentication_required",
    }
)
API_VERSION_INVALID = _code("api_version_invalid", INVALID_REQUEST, "Unknown Service-Version.")
REQUEST_INVALID = _code("request_invalid", INVALID_REQUEST, "The request could not be read.")
REQUEST_TOO_LARGE = _code("request_too_large", INVALID_REQUEST, "The request body is too large.", 413)
REQUEST_HEADERS_TOO_LARGE = _code(
    "request_headers_too_large", INVALID_REQUEST, "The request headers are too large.", 431
)
METHOD_NOT_ALLOWED = _code("method_not_allowed", INVALID_REQUEST, "The method is not allowed here.", 405)

# authentication_error: no valid credential.
AUTHENTICATION_FAILED = _code("authentication_failed", AUTHENTICATION, "Authentication failed.")
INVALID_CREDENTIALS = _code("invalid_credentials", AUTHENTICATION, "Invalid e-mail or password.")
API_KEY_MISSING = _code("api_key_missing", AUTHENTICATION, "No API key provided.")
API_KEY_INVALID = _code("api_key_invalid", AUTHENTICATION, "Invalid API key.")
API_KEY_REVOKED = _code("api_key_revoked", AUTHENTICATION, "This API key was revoked.")
TOKEN_MISSING = _code("token_missing", AUTHENTICATION, "No dashboard token provided.")
TOKEN_INVALID = _code("token_invalid", AUTHENTICATION, "Invalid dashboard token.")
TOKEN_EXPIRED = _code("token_expired", AUTHENTICATION, "The dashboard token has expired; log in again.")
CALLER_MISSING = _code("caller_missing", AUTHENTICATION, "The call carries no merchant.")

# authorization_error: a valid credential that may not do this.
PERMISSION_DENIED = _code("permission_denied", AUTHORIZATION, "This credential may not do that.")
SECRET_KEY_REQUIRED = _code("secret_key_required", AUTHORIZATION, "This operation needs a secret key.")
TEST_KEY_REQUIRED = _code("test_key_required", AUTHORIZATION, "This operation needs a test secret key.")
TEST_MODE_ONLY = _code("test_mode_only", AUTHORIZATION, "This exists only in the test environment.")

# resource_not_found: unknown, or another tenant's (the same answer, so nothing leaks).
RESOURCE_MISSING = _code("resource_missing", NOT_FOUND, "No such object.")

# idempotency_error: the Idempotency-Key was used for another request, or that request still runs.
IDEMPOTENCY_KEY_IN_USE = _code("idempotency_key_in_use", IDEMPOTENCY, "This Idempotency-Key is in use.")

# rate_limit_error
RATE_LIMIT_EXCEEDED = _code(
    "rate_limit_exceeded", RATE_LIMIT, "Too many requests; retry after the Retry-After seconds."
)
LOGIN_THROTTLED = _code(
    "login_throttled",
    RATE_LIMIT,
    "Too many failed logins for this e-mail; retry after the Retry-After seconds.",
)

# api_error: ours, never the caller's; retrying later may work.
INTERNAL_ERROR = _code("internal_error", API, "An internal error occurred.")
SERVICE_BUSY = _code("service_busy", API, "The resource is busy; retry the request.", 503)
SERVICE_UNAVAILABLE = _code("service_unavailable", API, "The service is temporarily unavailable.", 503)
TIMEOUT = _code("timeout", API, "The request took too long; retry it with the same Idempotency-Key.", 503)

# gateway_error: the payment processor could not be reached.
PROCESSOR_UNAVAILABLE = _code("processor_unavailable", GATEWAY, "The payment processor is unavailable.")

CATALOGUE: Mapping[str, ErrorCode] = {
    entry.code: entry for entry in globals().values() if isinstance(entry, ErrorCode)
}
"""Every code by its name."""
