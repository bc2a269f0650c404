"""payconnect: the Python client of Merchant Payment Connect, and the `payconnect` command.

import payconnect

with payconnect.Client("sk_test_…", "http://127.0.0.1:8000") as client:
    charge = client.charges.create(amount=2000, currency="usd", return_url="https://shop.example/ok")
    for event in client.events.list(limit=100).auto_paging_iter():
        ...

payconnect.webhooks.verify(raw_body, request.headers["Service-Signature"], "whsec_…")
"""

from __future__ import annotations

from payconnect import webhooks
from payconnect.client import Client
from payconnect.errors import (
    APIConnectionError,
    APIError,
    AuthenticationError,
    AuthorizationError,
    GatewayError,
    IdempotencyError,
    InvalidRequestError,
    NotFoundError,
    PayConnectError,
    RateLimitError,
    ServerError,
    SignatureVerificationError,
)
from payconnect.objects import ApiObject, ListObject
from payconnect.retries import RetryPolicy

__version__ = "0.1.0"

__all__ = [
    "APIConnectionError",
    "APIError",
    "ApiObject",
    "AuthenticationError",
    "AuthorizationError",
    "Client",
    "GatewayError",
    "IdempotencyError",
    "InvalidRequestError",
    "ListObject",
    "NotFoundError",
    "PayConnectError",
    "RateLimitError",
    "RetryPolicy",
    "ServerError",
    "SignatureVerificationError",
    "__version__",
    "webhooks",
]
