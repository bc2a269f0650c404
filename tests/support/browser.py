"""What the browser e2e tests share: Debian's Chromium and its flags, the wait for a page, and the
merchant's own return and cancel pages a hosted page sends the browser back to."""

from __future__ import annotations

from http.server import BaseHTTPRequestHandler
from typing import Any

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
WAIT_MS = 15_000


class MerchantPages(BaseHTTPRequestHandler):
    """The merchant's own return and cancel pages: any GET is a small HTML page naming its path."""

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        body = f"<!doctype html><title>Merchant</title><h1>Merchant page {self.path}</h1>".encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass
