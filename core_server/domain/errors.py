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
    └── ProcessorUnavailable      gateway_error (502)

Card declines are not errors: they are `PaymentOutcome` values (see `sandbox.py`).
"""

from __future__ import annotations


class DomainError(Exception):
    """A rule said no; the message is safe to show to the merchant."""

    type = "api_error"
    code = "api_error"

    def __init__(self, message: str, *, code: str | None = None, param: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.param = param


class InvalidRequest(DomainError):
    type = "invalid_request_error"
    code = "parameter_invalid"


class ParameterMissing(InvalidRequest):
    code = "parameter_missing"

    def __init__(self, param: str) -> None:
        super().__init__(f"Missing required parameter: {param}.", param=param)


class ParameterInvalid(InvalidRequest):
    code = "parameter_invalid"


class StateConflict(InvalidRequest):
    """The request is well-formed but the entity's state forbids it; an idempotent result is stored."""

    code = "invalid_state"


class NotFound(DomainError):
    type = "resource_not_found"
    code = "resource_missing"


class Unauthenticated(DomainError):
    type = "authentication_error"
    code = "authentication_failed"


class Forbidden(DomainError):
    type = "authorization_error"
    code = "permission_denied"


class IdempotencyConflict(DomainError):
    type = "idempotency_error"
    code = "idempotency_key_in_use"


class ProcessorUnavailable(DomainError):
    type = "gateway_error"
    code = "processor_unavailable"


def charge_not_found(charge_id: str) -> NotFound:
    """One message for unknown and foreign charges, so the answer leaks nothing."""
    return NotFound(f"No such charge: '{charge_id}'", param="id")


def dispute_not_found(dispute_id: str) -> NotFound:
    """Unknown and foreign disputes alike; never the charge's id, which would leak another merchant's."""
    return NotFound(f"No such dispute: '{dispute_id[:100]}'", param="id")
