"""Idempotent charge-create load, as a careful merchant's clients send it through a failover.

Each client thread creates charges one after another; every create carries its own Idempotency-Key and
is resent with that same key after a 503 (or no answer at all) until it is acknowledged with a 201. The
key is also the charge's description, so afterwards the charges can be counted per key through the API:
each acknowledged key must name exactly one charge.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx

API = "/api/v1/connect"
RETRY_PAUSE = 0.05


@dataclass(frozen=True)
class Attempt:
    """One POST as the client saw it."""

    key: str
    started: float
    ended: float
    status: int | None  # None: no HTTP answer (refused, reset, client time-out)
    payload: Any
    replayed: bool = False

    @property
    def error(self) -> dict[str, Any] | None:
        if isinstance(self.payload, dict) and isinstance(self.payload.get("error"), dict):
            return self.payload["error"]
        return None


@dataclass
class CreateLoad:
    base_url: str
    auth: dict[str, str]
    clients: int = 6
    prefix: str = "failover"
    give_up_seconds: float = 30.0
    attempts: list[Attempt] = field(default_factory=list)
    acknowledged: dict[str, str] = field(default_factory=dict)  # key -> charge id
    abandoned: list[str] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _threads: list[threading.Thread] = field(default_factory=list)

    def start(self) -> CreateLoad:
        for n in range(self.clients):
            thread = threading.Thread(target=self._client, name=f"create-load-{n}", daemon=True)
            self._threads.append(thread)
            thread.start()
        return self

    def stop(self) -> None:
        """Each client finishes the key it is on (its retries included), then stops."""
        self._stop.set()
        for thread in self._threads:
            thread.join(self.give_up_seconds + 10)

    def snapshot(self) -> list[Attempt]:
        with self._lock:
            return list(self.attempts)

    def wait_for(self, predicate: Any, count: int = 1, timeout: float = 15.0) -> list[Attempt]:
        deadline = time.monotonic() + timeout
        while True:
            matching = [a for a in self.snapshot() if predicate(a)]
            if len(matching) >= count:
                return matching
            if time.monotonic() > deadline:
                recent = [(a.status, a.error) for a in self.snapshot()[-5:]]
                raise AssertionError(f"the load never showed {count} matching attempts; last: {recent}")
            time.sleep(0.02)

    def _client(self) -> None:
        with httpx.Client(base_url=self.base_url, timeout=15.0) as client:
            while not self._stop.is_set():
                key = f"{self.prefix}-{uuid.uuid4().hex}"
                body = {
                    "amount": 1500,
                    "currency": "usd",
                    "return_url": "https://shop.example/ok",
                    "description": key,
                }
                charge_id = self._create(client, key, body)
                with self._lock:
                    if charge_id is None:
                        self.abandoned.append(key)
                    else:
                        self.acknowledged[key] = charge_id

    def _create(self, client: httpx.Client, key: str, body: dict[str, Any]) -> str | None:
        first = time.monotonic()
        headers = {**self.auth, "Idempotency-Key": key}
        while time.monotonic() - first < self.give_up_seconds:
            started = time.monotonic()
            status: int | None
            payload: Any = None
            replayed = False
            try:
                response = client.post(f"{API}/charges", json=body, headers=headers)
                status = response.status_code
                replayed = response.headers.get("Idempotent-Replayed") == "true"
                try:
                    payload = response.json()
                except ValueError:
                    payload = response.text
            except httpx.HTTPError as exc:
                status, payload = None, f"{type(exc).__name__}: {exc}"
            attempt = Attempt(key, started, time.monotonic(), status, payload, replayed)
            with self._lock:
                self.attempts.append(attempt)
            if status == 201:
                return str(payload["id"])
            if status not in (503, None):
                return None  # not retryable: the test fails on it
            time.sleep(RETRY_PAUSE)
        return None


def list_charges(client: httpx.Client, auth: dict[str, str]) -> Iterator[dict[str, Any]]:
    """Every charge of the merchant, through the API's cursor pagination."""
    cursor: str | None = None
    while True:
        params: dict[str, Any] = {"limit": 100}
        if cursor is not None:
            params["starting_after"] = cursor
        page = client.get(f"{API}/charges", params=params, headers=auth)
        assert page.status_code == 200, page.text
        body = page.json()
        yield from body["data"]
        if not body["has_more"] or not body["data"]:
            return
        cursor = body["data"][-1]["id"]
