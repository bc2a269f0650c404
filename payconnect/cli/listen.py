"""`payconnect listen`: receive the sandbox's events on this machine and forward them to a local URL.

Opens a CLI session (the secret stays the same for this device name), reads its Server-Sent-Events
stream, POSTs each event's raw body with its Service-Signature header to --forward-to, prints
`<time> <type> <id> → <status>`, and reports the answer to the platform. A dropped stream (gateway
restart, network) is reopened with Last-Event-ID, so nothing is lost or forwarded twice; a session that
expired or was replaced is reopened for the same device.
"""

from __future__ import annotations

import contextlib
import json
import socket
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import httpx

from payconnect.cli.output import Progress, event_line
from payconnect.client import Client
from payconnect.errors import APIError, NotFoundError, PayConnectError, api_error
from payconnect.sse import SseParser
from payconnect.transport import API_PREFIX

__all__ = ["ListenOptions", "Listener", "default_device_name"]

FORWARD_TIMEOUT = 10.0
"""Like a webhook delivery (DESIGN §7): an answer within 10 s, else the attempt failed."""
STREAM_READ_TIMEOUT = 60.0
"""The platform sends a keep-alive every 15 s; a minute of silence means the connection is dead."""
RECONNECT_DELAYS = (0.2, 0.5, 1.0, 2.0)


@dataclass(frozen=True)
class ListenOptions:
    forward_to: str
    events: tuple[str, ...] = ()
    device_name: str = ""


@dataclass
class Listener:
    client: Client
    options: ListenOptions
    progress: Progress = field(default_factory=Progress)
    last_event_id: str | None = None
    session: Any = None

    def open_session(self) -> Any:
        self.session = self.client.cli_sessions.create(device_name=self.options.device_name)
        return self.session

    def run(self) -> None:
        self.open_session()
        print(
            f"Ready! Your webhook signing secret is {self.session.secret} (^C to quit)",
            file=sys.stdout,
            flush=True,
        )
        failures = 0
        with httpx.Client(timeout=httpx.Timeout(FORWARD_TIMEOUT)) as forwarder:
            try:
                while True:
                    try:
                        self._read_stream(forwarder)
                        failures = 0  # a stream that ended on its own: reconnect at once
                    except NotFoundError:
                        self.progress.state = "session ended, reopening"
                        self.progress.draw()
                        self.open_session()  # the same device name: the same secret
                        continue
                    except (httpx.TransportError, httpx.HTTPStatusError, APIError) as exc:
                        if isinstance(exc, APIError) and exc.http_status in (401, 403):
                            raise
                        failures += 1
                        self.progress.state = f"reconnecting ({type(exc).__name__})"
                        self.progress.draw()
                    time.sleep(RECONNECT_DELAYS[min(failures, len(RECONNECT_DELAYS) - 1)])
            finally:
                self.progress.finish()
                self._close_session()

    def _close_session(self) -> None:
        with contextlib.suppress(PayConnectError):  # else it expires by itself
            self.client.cli_sessions.close(self.session.id)

    def _read_stream(self, forwarder: httpx.Client) -> None:
        requester = self.client.requester
        headers = {**requester.headers(), "Accept": "text/event-stream"}
        if self.last_event_id:
            headers["Last-Event-ID"] = self.last_event_id
        params = {"events": ",".join(self.options.events)} if self.options.events else None
        timeout = httpx.Timeout(10.0, read=STREAM_READ_TIMEOUT)
        with httpx.stream(
            "GET",
            requester.url(f"{API_PREFIX}/cli/sessions/{self.session.id}/stream"),
            headers=headers,
            params=params,
            timeout=timeout,
        ) as response:
            if response.status_code >= 400:
                response.read()
                body = response.json() if response.content else None
                raise api_error(response.status_code, body, response.headers)
            self.progress.state = "listening"
            self.progress.draw()
            parser = SseParser()
            for line in response.iter_lines():
                for message in parser.feed(line):
                    if message.event == "webhook_event":
                        self._forward(forwarder, json.loads(message.data))
                        self.last_event_id = message.id
                if line.startswith(":"):
                    self.progress.draw()

    def _forward(self, forwarder: httpx.Client, message: dict[str, Any]) -> None:
        headers = {"Content-Type": "application/json; charset=utf-8", **message["headers"]}
        started = time.monotonic()
        status: int | None = None
        error: str | None = None
        try:
            answer = forwarder.post(
                self.options.forward_to, content=message["body"].encode(), headers=headers
            )
            status = answer.status_code
        except httpx.HTTPError as exc:
            error = f"{type(exc).__name__}: {exc}"[:500] or type(exc).__name__
        latency_ms = int((time.monotonic() - started) * 1000)
        succeeded = status is not None and 200 <= status <= 299
        self.progress.forwarded += 1
        self.progress.failed += 0 if succeeded else 1
        outcome = str(status) if status is not None else f"error ({error})"
        self.progress.print(event_line(message["type"], message["id"], outcome))
        try:
            self.client.cli_sessions.record_response(
                self.session.id, event_id=message["id"], status=status, error=error, latency_ms=latency_ms
            )
        except PayConnectError as exc:
            print(f"warning: could not report the answer for {message['id']}: {exc}", file=sys.stderr)


def default_device_name() -> str:
    return socket.gethostname() or "payconnect-cli"
