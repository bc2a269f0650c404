"""Helpers of the developer-tools tests: CLI sessions, reading their SSE stream, a LIVE key of a merchant."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx

from payconnect.sse import SseParser
from tests.e2e.api_client import API, Merchant

SESSIONS = f"{API}/cli/sessions"


def open_session(client: httpx.Client, merchant: Merchant, device: str = "laptop") -> dict[str, Any]:
    response = client.post(SESSIONS, json={"device_name": device}, headers=merchant.auth)
    assert response.status_code == 201, response.text
    return dict(response.json())


def live_key(client: httpx.Client, merchant: Merchant) -> dict[str, str]:
    key = client.post(f"{API}/keys", json={"name": "live", "environment": "live"}, headers=merchant.jwt)
    assert key.status_code == 201, key.text
    return {"Authorization": f"Bearer {key.json()['secret_key']}"}


@dataclass
class StreamReader:
    """Reads a session's stream in a thread; `messages` are the webhook_event data objects, in order."""

    base_url: str
    session_id: str
    auth: dict[str, str]
    last_event_id: str | None = None
    query: dict[str, str] = field(default_factory=dict)
    messages: list[dict[str, Any]] = field(default_factory=list)
    ids: list[str | None] = field(default_factory=list)
    error: BaseException | None = None
    ended: threading.Event = field(default_factory=threading.Event)
    connected: threading.Event = field(default_factory=threading.Event)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def start(self) -> StreamReader:
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        assert self.connected.wait(10), f"stream did not open: {self.error!r}"
        return self

    def _run(self) -> None:
        headers = dict(self.auth)
        if self.last_event_id:
            headers["Last-Event-ID"] = self.last_event_id
        url = f"{self.base_url}{SESSIONS}/{self.session_id}/stream"
        try:
            timeout = httpx.Timeout(10.0, read=60.0)
            with httpx.stream("GET", url, headers=headers, params=self.query, timeout=timeout) as response:
                response.raise_for_status()
                self.connected.set()
                parser = SseParser()
                for line in response.iter_lines():
                    if self._stop.is_set():
                        return
                    for message in parser.feed(line):
                        if message.event == "webhook_event":
                            self.messages.append(json.loads(message.data))
                            self.ids.append(message.id)
        except BaseException as exc:  # noqa: BLE001 - reported to the test
            self.error = exc
            self.connected.set()
        finally:
            self.ended.set()

    def wait_for(self, count: int, timeout: float = 15.0) -> list[dict[str, Any]]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and len(self.messages) < count:
            time.sleep(0.02)
        assert len(self.messages) >= count, f"got {len(self.messages)} of {count} events ({self.error!r})"
        return list(self.messages)

    def stop(self) -> None:
        self._stop.set()

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(list(self.messages))
