"""Helpers of the hostile-input tests: raw HTTP for bytes httpx will not send, envelope checks, and a
snapshot of everything a merchant can see, to prove a refused request changed nothing."""

from __future__ import annotations

import json
import socket
from dataclasses import dataclass
from types import EllipsisType
from typing import Any

import httpx

from tests.e2e.api_client import API, Merchant

ERROR_KEYS = {"type", "code", "message", "param", "doc_url"}


@dataclass(frozen=True)
class RawResponse:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


def raw_request(base_url: str, request: bytes, timeout: float = 10.0) -> RawResponse:
    """Send `request` verbatim (invalid UTF-8, odd framing) and read one `Connection: close` answer."""
    host, port = httpx.URL(base_url).host, httpx.URL(base_url).port
    with socket.create_connection((host, port), timeout=timeout) as sock:
        sock.sendall(request)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return RawResponse(int(status_line.split()[1]), headers, body)


def raw_get(base_url: str, target: bytes, headers: bytes = b"") -> RawResponse:
    head = b"GET " + target + b" HTTP/1.1\r\nHost: t\r\nConnection: close\r\n"
    return raw_request(base_url, head + headers + b"\r\n")


def raw_post(
    base_url: str, target: bytes, body: bytes, headers: bytes = b"", content_type: bytes = b"application/json"
) -> RawResponse:
    framing = b"Content-Type: " + content_type + b"\r\nContent-Length: " + str(len(body)).encode() + b"\r\n"
    return raw_request(
        base_url,
        b"POST "
        + target
        + b" HTTP/1.1\r\nHost: t\r\nConnection: close\r\n"
        + framing
        + headers
        + b"\r\n"
        + body,
    )


def auth_header(merchant: Merchant) -> bytes:
    return f"Authorization: Bearer {merchant.secret_key}\r\n".encode()


def envelope(
    response: httpx.Response | RawResponse,
    status: int,
    *,
    code: str | None = None,
    param: str | None | EllipsisType = ...,
) -> dict[str, Any]:
    """The error of an envelope answer with `status`; `param` is checked unless left as `...`."""
    body = response.body if isinstance(response, RawResponse) else response.content
    assert _status(response) == status, (_status(response), body[:500])
    assert response.headers["content-type"].startswith("application/json"), response.headers
    assert response.headers.get("request-id"), "every answer carries a Request-Id"
    parsed = json.loads(body)
    assert set(parsed) == {"error"} and set(parsed["error"]) == ERROR_KEYS, parsed
    error: dict[str, Any] = parsed["error"]
    if code is not None:
        assert error["code"] == code, error
    if param is not ...:
        assert error["param"] == param, error
    return error


def _status(response: httpx.Response | RawResponse) -> int:
    return response.status if isinstance(response, RawResponse) else response.status_code


def snapshot(client: httpx.Client, merchant: Merchant) -> dict[str, Any]:
    """Everything the merchant can read: a refused request must leave all of it as it was."""

    def get(path: str, headers: dict[str, str]) -> Any:
        response = client.get(path, headers=headers)
        assert response.status_code == 200, response.text
        return response.json()

    return {
        "charges": get(f"{API}/charges?limit=100", merchant.auth),
        "events": get(f"{API}/events?limit=100", merchant.auth),
        "webhooks": get(f"{API}/webhooks", merchant.auth),
        "keys": get(f"{API}/keys", merchant.jwt),
        "profile": get("/api/v1/merchants/me", merchant.jwt),
    }
