"""Requester: one API call over httpx, with its idempotency key, retries and typed errors.

Every POST gets an Idempotency-Key generated once for the call (or the caller's own) and sent unchanged
on each automatic retry, so a request that reached the server before its answer was lost is answered
from the stored result instead of running twice. retries.py decides what is retried and how long to wait.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Mapping
from typing import Any

import httpx

from payconnect.errors import APIConnectionError, api_error
from payconnect.retries import RetryPolicy

__all__ = ["API_PREFIX", "DEFAULT_BASE_URL", "Requester"]

DEFAULT_BASE_URL = "http://127.0.0.1:8000"
API_PREFIX = "/api/v1/connect"
USER_AGENT = "payconnect-python/0.1"


class Requester:
    def __init__(
        self,
        api_key: str,
        base_url: str = DEFAULT_BASE_URL,
        *,
        policy: RetryPolicy | None = None,
        timeout: float = 30.0,
        http_client: httpx.Client | None = None,
        sleep: Callable[[float], None] = time.sleep,
        service_version: str | None = None,
    ) -> None:
        self.api_key = api_key
        self.base_url = base_url.rstrip("/")
        self.policy = policy or RetryPolicy()
        self._http = http_client or httpx.Client(timeout=timeout)
        self._owns_http = http_client is None
        self._sleep = sleep
        self._service_version = service_version
        self.last_idempotency_key: str | None = None
        """The key the last POST was sent with (its retries included)."""

    def close(self) -> None:
        if self._owns_http:
            self._http.close()

    def headers(self, bearer: str | None = None) -> dict[str, str]:
        headers = {"Authorization": f"Bearer {bearer or self.api_key}", "User-Agent": USER_AGENT}
        if self._service_version:
            headers["Service-Version"] = self._service_version
        return headers

    def url(self, path: str) -> str:
        return self.base_url + path

    def request(
        self,
        method: str,
        path: str,
        *,
        json: Mapping[str, Any] | None = None,
        params: Mapping[str, Any] | None = None,
        idempotency_key: str | None = None,
        bearer: str | None = None,
    ) -> Any:
        """The answer's JSON; APIError for an error answer, APIConnectionError when none arrived."""
        headers = self.headers(bearer)
        if method == "POST":
            key = idempotency_key or str(uuid.uuid4())
            headers["Idempotency-Key"] = key
            self.last_idempotency_key = key
        query = {k: _query_value(v) for k, v in (params or {}).items() if v is not None}
        retry = 0
        while True:
            retry += 1
            try:
                response = self._http.request(
                    method, self.url(path), json=json, params=query or None, headers=headers
                )
            except httpx.TransportError as exc:
                wait = self.policy.delay(retry) if self.policy.retryable(None) else None
                if wait is None:
                    raise APIConnectionError(f"{method} {path}: {type(exc).__name__}: {exc}") from exc
                self._sleep(wait)
                continue
            body = _json(response)
            if response.is_success:
                return body
            error = api_error(response.status_code, body, response.headers)
            if self.policy.retryable(response.status_code, error.message):
                wait = self.policy.delay(retry, response.headers.get("Retry-After"))
                if wait is not None:
                    self._sleep(wait)
                    continue
            raise error


def _query_value(value: Any) -> Any:
    if isinstance(value, bool):
        return "true" if value else "false"
    return value


def _json(response: httpx.Response) -> Any:
    if not response.content:
        return None
    try:
        return response.json()
    except ValueError:
        return response.text
