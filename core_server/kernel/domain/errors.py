"""The domain error tree; every error carries the spec's `type`, `code` and `param`.

    DomainError
    ├── InvalidRequest            invalid_request_error (400)
    │   ├── ParameterMissing      parameter_missing
    │   ├── ParameterInvalid      parameter_invalid (and amount_too_small, currency_unsupported, …)
    │   └── StateConflict         the charge is in the wrong state (invalid_state, charge_expired, …)
    ├── NotFound                  resource_not_found (404): unknown, or another tenant's
    ├── Unauthenticated           authentication_error (401)
    ├── Forbidden                 authorization_error (403)
    ├── IdempotencyConflict       idempotency_error (409)
    ├── RateLimited               rate_limit_error (429), with the seconds to wait (Retry-After)
    └── ProcessorUnavailable      gateway_error (502)

Types and codes come from the contract's catalogue (protos/connect/errors.py), which the gateway reads
too. Card declines are not errors: they are `PaymentOutcome` values (see `sandbox.py`).
"""

from __future__ import annotations

from datetime import timedelta

from connect import errors


class DomainError(Exception):
    """A rule said no; the message is safe to show to the merchant."""

    type = errors.API
    code = errors.INTERNAL_ERROR.code

    def __init__(self, message: str, *, code: str | None = None, param: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.param = param


class InvalidRequest(DomainError):
    type = errors.INVALID_REQUEST
    code = errors.PARAMETER_INVALID.code


class ParameterMissing(InvalidRequest):
    code = errors.PARAMETER_MISSING.code

    def __init__(self, param: str) -> None:
        super().__init__(f"Missing required parameter: {param}.", param=param)


class ParameterInvalid(InvalidRequest):
    code = errors.PARAMETER_INVALID.code


class StateConflict(InvalidRequest):
    """The request is well-formed but the entity's state forbids it; an idempotent result is stored."""

    code = errors.INVALID_STATE.code


class NotFound(DomainError):
    type = errors.NOT_FOUND
    code = errors.RESOURCE_MISSING.code


class Unauthenticated(DomainError):
    type = errors.AUTHENTICATION
    code = errors.AUTHENTICATION_FAILED.code


class Forbidden(DomainError):
    type = errors.AUTHORIZATION
    code = errors.PERMISSION_DENIED.code


class IdempotencyConflict(DomainError):
    type = errors.IDEMPOTENCY
    code = errors.IDEMPOTENCY_KEY_IN_USE.code


class RateLimited(DomainError):
    """Too many attempts: retry after `retry_after` (sent as RetryInfo, answered as Retry-After)."""

    type = errors.RATE_LIMIT
    code = errors.RATE_LIMIT_EXCEEDED.code

    def __init__(
        self, message: str, retry_after: timedelta, *, code: str | None = None, param: str | None = None
    ) -> None:
        super().__init__(message, code=code, param=param)
        self.retry_after = retry_after


class ProcessorUnavailable(DomainError):
    type = errors.GATEWAY
    code = errors.PROCESSOR_UNAVAILABLE.code
