"""Errors of the client library; every API error carries the envelope the API answered.

PayConnectError
├── APIConnectionError          no HTTP answer (connect failure, time-out), after the retries
├── SignatureVerificationError  a webhook payload whose Service-Signature does not verify
└── APIError                    an HTTP answer with the error envelope: type, code, message, param
    ├── InvalidRequestError     400 invalid_request_error
    ├── AuthenticationError     401 authentication_error
    ├── AuthorizationError      403 authorization_error
    ├── NotFoundError           404 resource_not_found
    ├── IdempotencyError        409 idempotency_error
    ├── RateLimitError          429 rate_limit_error
    ├── ServerError             500/503 api_error
    └── GatewayError            502 gateway_error
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = [
    "APIConnectionError",
    "APIError",
    "AuthenticationError",
    "AuthorizationError",
    "GatewayError",
    "IdempotencyError",
    "InvalidRequestError",
    "NotFoundError",
    "PayConnectError",
    "RateLimitError",
    "ServerError",
    "SignatureVerificationError",
    "api_error",
]


class PayConnectError(Exception):
    """Every error this library raises."""


class APIConnectionError(PayConnectError):
    """The API could not be reached or did not answer in time, even after the automatic retries."""


class SignatureVerificationError(PayConnectError):
    """A webhook payload whose signature header does not verify with the secret (or is too old)."""


class APIError(PayConnectError):
    """An error answer of the API, with its envelope `{"error": {type, code, message, param, doc_url}}`."""

    def __init__(
        self,
        message: str,
        *,
        type: str,
        code: str | None,
        param: str | None,
        http_status: int,
        doc_url: str | None = None,
        headers: Mapping[str, str] | None = None,
        body: Any = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.type = type
        self.code = code
        self.param = param
        self.http_status = http_status
        self.doc_url = doc_url
        self.headers = dict(headers or {})
        self.body = body

    @property
    def request_id(self) -> str | None:
        return self.headers.get("request-id")

    def __str__(self) -> str:
        where = f" (param {self.param})" if self.param else ""
        return f"{self.http_status} {self.type}/{self.code}: {self.message}{where}"


class InvalidRequestError(APIError):
    pass


class AuthenticationError(APIError):
    pass


class AuthorizationError(APIError):
    pass


class NotFoundError(APIError):
    pass


class IdempotencyError(APIError):
    pass


class RateLimitError(APIError):
    pass


class ServerError(APIError):
    pass


class GatewayError(APIError):
    pass


BY_TYPE: dict[str, type[APIError]] = {
    "invalid_request_error": InvalidRequestError,
    "authentication_error": AuthenticationError,
    "authorization_error": AuthorizationError,
    "resource_not_found": NotFoundError,
    "idempotency_error": IdempotencyError,
    "rate_limit_error": RateLimitError,
    "api_error": ServerError,
    "gateway_error": GatewayError,
}


def api_error(http_status: int, body: Any, headers: Mapping[str, str]) -> APIError:
    """The typed error of an error answer; a body without the envelope (a proxy's page) still gets one."""
    envelope = body.get("error") if isinstance(body, dict) else None
    if not isinstance(envelope, dict):
        kind = "api_error" if http_status >= 500 else "invalid_request_error"
        return BY_TYPE[kind](
            f"HTTP {http_status} without an error envelope",
            type=kind,
            code=None,
            param=None,
            http_status=http_status,
            headers=headers,
            body=body,
        )
    error_type = str(envelope.get("type") or "api_error")
    cls = BY_TYPE.get(error_type, APIError)
    return cls(
        str(envelope.get("message") or ""),
        type=error_type,
        code=envelope.get("code"),
        param=envelope.get("param"),
        http_status=http_status,
        doc_url=envelope.get("doc_url"),
        headers=headers,
        body=body,
    )
