"""Helpers of the security e2e tests: ids of the same shape, id-blind comparison, 429-tolerant calls."""

from __future__ import annotations

import json
import secrets
import string
import time
from typing import Any

import httpx

_ALPHANUMERIC = string.ascii_letters + string.digits
RATE_LIMIT_RETRIES = 5


def same_shape(object_id: str) -> str:
    """An id nobody holds, with the same prefix, length and alphabet as `object_id`."""
    prefix, _, body = object_id.rpartition("_")
    return f"{prefix}_" + "".join(secrets.choice(_ALPHANUMERIC) for _ in body)


def call(client: httpx.Client, method: str, url: str, **kwargs: Any) -> httpx.Response:
    """One request; a 429 (the per-merchant limit, reached by a burst of probes) waits for the window
    named by Retry-After and tries again, so the tests see the real answer and not the limiter's."""
    for _ in range(RATE_LIMIT_RETRIES):
        response = client.request(method, url, **kwargs)
        if response.status_code != 429:
            return response
        time.sleep(float(response.headers.get("Retry-After", "1")))
    return response


def id_blind(response: httpx.Response, object_id: str) -> tuple[int, Any]:
    """(status, body) with every occurrence of `object_id` replaced by a placeholder."""
    text = response.text.replace(object_id, "<id>")
    try:
        return response.status_code, json.loads(text)
    except ValueError:
        return response.status_code, text
