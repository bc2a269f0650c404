"""Real HTTP webhook receivers on 127.0.0.1 for tests: record every delivery, misbehave on request."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from core_server.webhooks.domain.webhook_signature import verify_signature

HUGE_BODY_BYTES = 200 * 1024 * 1024


@dataclass
class Delivery:
    """One POST as the receiver saw it."""

    path: str
    headers: dict[str, str]
    body: bytes
    received_at: float
    answered: int | None = None
    """The status the receiver answered; None while hanging or when the sender went away first."""

    @property
    def event(self) -> dict[str, Any]:
        return json.loads(self.body)

    @property
    def signature(self) -> str:
        return self.headers.get("service-signature", "")

    def verifies(self, secret: str, now: int | None = None) -> bool:
        return verify_signature(self.body, self.signature, secret, now=now)


@dataclass
class Behaviour:
    """How a path answers: a status after a delay, or hang / redirect / huge body."""

    status: int = 200
    delay: float = 0.0
    mode: str = "normal"  # normal | hang | redirect | huge
    location: str = ""


@dataclass
class WebhookReceiver:
    """A threaded HTTP server; `overlaps` lists (path, event id) pairs seen twice at the same time."""

    server: ThreadingHTTPServer
    deliveries: list[Delivery] = field(default_factory=list)
    behaviours: dict[str, Behaviour] = field(default_factory=dict)
    overlaps: list[tuple[str, str]] = field(default_factory=list)
    max_concurrency: int = 0
    connections: int = 0
    """TCP connections accepted: a sender that keeps connections alive opens few."""
    lock: threading.Lock = field(default_factory=threading.Lock)
    released: threading.Event = field(default_factory=threading.Event)
    _inflight: Counter[tuple[str, str]] = field(default_factory=Counter)
    _active: int = 0

    @property
    def port(self) -> int:
        return int(self.server.server_address[1])

    def url(self, path: str = "/hook") -> str:
        host = self.server.server_address[0]
        return f"http://{host if isinstance(host, str) else host.decode()}:{self.port}{path}"

    def behave(self, path: str, **kwargs: Any) -> None:
        with self.lock:
            self.behaviours[path] = Behaviour(**kwargs)

    def received(self, path: str | None = None) -> list[Delivery]:
        with self.lock:
            return [d for d in self.deliveries if path is None or d.path == path]

    async def wait_for(
        self,
        count: int,
        path: str | None = None,
        timeout: float = 10.0,  # noqa: ASYNC109 - a polling deadline; nothing is cancelled
    ) -> list[Delivery]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            got = self.received(path)
            if len(got) >= count:
                return got
            await asyncio.sleep(0.02)
        got = self.received(path)
        raise AssertionError(f"expected {count} deliveries to {path or 'any path'}, got {len(got)}")

    def wait_for_sync(self, count: int, path: str | None = None, timeout: float = 10.0) -> list[Delivery]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            got = self.received(path)
            if len(got) >= count:
                return got
            time.sleep(0.02)
        raise AssertionError(
            f"expected {count} deliveries to {path or 'any path'}, got {len(self.received(path))}"
        )

    def close(self) -> None:
        self.released.set()  # hanging handlers return at once
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> WebhookReceiver:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


class QuietServer(ThreadingHTTPServer):
    """Senders abort connections they do not keep; the reset that follows is not an error here."""

    daemon_threads = True
    request_queue_size = 128  # the default listen backlog of 5 refuses bursts of concurrent deliveries

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass


def start_receiver(port: int = 0, host: str = "127.0.0.1") -> WebhookReceiver:
    receiver: WebhookReceiver

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def setup(self) -> None:
            super().setup()
            with receiver.lock:
                receiver.connections += 1

        def log_message(self, *_: Any) -> None:
            pass

        def do_POST(self) -> None:  # noqa: N802 - http.server's naming
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            path = self.path
            try:
                key = (path, str(json.loads(body).get("id")))
            except ValueError:
                key = (path, "?")
            with receiver.lock:
                behaviour = receiver.behaviours.get(path, Behaviour())
                receiver._inflight[key] += 1
                receiver._active += 1
                receiver.max_concurrency = max(receiver.max_concurrency, receiver._active)
                if receiver._inflight[key] > 1:
                    receiver.overlaps.append(key)
                delivery = Delivery(
                    path, {k.lower(): v for k, v in self.headers.items()}, body, time.monotonic()
                )
                receiver.deliveries.append(delivery)
            try:
                answered = self._answer(behaviour)
                with receiver.lock:
                    delivery.answered = answered
            except (BrokenPipeError, ConnectionResetError):
                pass
            finally:
                with receiver.lock:
                    receiver._inflight[key] -= 1
                    receiver._active -= 1

        def _answer(self, behaviour: Behaviour) -> int | None:
            if behaviour.mode == "hang":
                receiver.released.wait(60)
                return None
            if behaviour.delay:
                time.sleep(behaviour.delay)
            if behaviour.mode == "redirect":
                self.send_response(302)
                self.send_header("Location", behaviour.location)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return 302
            if behaviour.mode == "huge":
                self.send_response(200)
                self.send_header("Content-Length", str(HUGE_BODY_BYTES))
                self.end_headers()
                chunk = b"x" * 65536
                for _ in range(HUGE_BODY_BYTES // len(chunk)):
                    if receiver.released.is_set():
                        break
                    self.wfile.write(chunk)
                return 200
            payload = b"ok"
            self.send_response(behaviour.status)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
            return behaviour.status

    server = QuietServer((host, port), Handler)
    receiver = WebhookReceiver(server)
    threading.Thread(
        target=server.serve_forever,
        kwargs={"poll_interval": 0.05},
        name=f"receiver-{receiver.port}",
        daemon=True,
    ).start()
    return receiver


def refused_url(path: str = "/hook") -> str:
    """A loopback URL where nothing listens: connections are refused at once."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}{path}"
