"""Row counts of the tables that only grow without retention, sampled during the soak, and an optional
webhook sink so the soak's events also make deliveries and attempts.

With a shortened retention (EVENT_RETENTION_SECONDS, RETENTION_INTERVAL_SECONDS in the environment) the
counts must stop growing once the first window has passed: the sweep then deletes about as much per
period as the traffic adds. Idempotency keys live 24 h whatever the setting, so they grow through any
soak shorter than that; they are sampled all the same.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import psycopg

TABLES = ("events", "webhook_deliveries", "webhook_attempts", "idempotency_keys", "pending_deliveries")
# Exact counts of a handful of fixed tables; the bench database is small enough for count(*).
_COUNTS = (
    "SELECT (SELECT count(*) FROM events) AS events,"
    " (SELECT count(*) FROM webhook_deliveries) AS webhook_deliveries,"
    " (SELECT count(*) FROM webhook_attempts) AS webhook_attempts,"
    " (SELECT count(*) FROM idempotency_keys) AS idempotency_keys,"
    " (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending') AS pending_deliveries"
)
# The consistency pass's checks that expect every event ever made to still exist.
EVENT_CHECKS = (
    "charge_without_created_event",
    "authorized_without_completed_event",
    "refunds_disagree_with_refund_events",
)
FLAT_TOLERANCE = 0.25  # counts swing by up to one sweep period's worth of traffic


def table_rows(dsn: str) -> dict[str, int] | None:
    try:
        with psycopg.connect(dsn, autocommit=True, connect_timeout=5) as conn:
            row = conn.execute(_COUNTS).fetchone()
    except psycopg.Error:
        return None
    return dict(zip(TABLES, (int(n) for n in row), strict=True)) if row else None


def retention_settings() -> tuple[float | None, float]:
    """(event retention in seconds if shortened through the environment, the sweep period)."""
    seconds = os.environ.get("EVENT_RETENTION_SECONDS") or ""
    days = os.environ.get("EVENT_RETENTION_DAYS") or ""
    window = float(seconds) if seconds else (float(days) * 86400 if days else None)
    return window, float(os.environ.get("RETENTION_INTERVAL_SECONDS") or 600)


def summarize(samples: list[tuple[float, dict[str, int]]], seconds: int) -> dict[str, Any]:
    """Per table: the count once the first retention window and a sweep period have passed, the last
    count, and whether the last stayed within FLAT_TOLERANCE of it (None when the soak was too short)."""
    window, interval = retention_settings()
    settled_at = (window or 30 * 86400) + interval
    out: dict[str, Any] = {"retention_seconds": window, "sweep_seconds": interval, "settled_at": settled_at}
    after = [(t, counts) for t, counts in samples if t >= settled_at]
    for table in TABLES:
        series = [(t, counts[table]) for t, counts in samples]
        entry: dict[str, Any] = {"last": series[-1][1] if series else None, "samples": series}
        if len(after) >= 2 and table not in ("idempotency_keys", "pending_deliveries"):
            first, last = after[0][1][table], after[-1][1][table]
            entry.update(settled=first, flat=last <= first * (1 + FLAT_TOLERANCE) + 10)
        else:
            entry.update(settled=None, flat=None)
        out[table] = entry
    return out


def without_purged_events(consistency: dict[str, Any]) -> dict[str, Any]:
    """With a shortened event retention the soak's old events are gone by design: the checks that count
    events per charge are set aside (and named), the others stand."""
    window, _ = retention_settings()
    if window is None or window >= 86400:
        return consistency
    violations = {k: v for k, v in consistency["violations"].items() if k not in EVENT_CHECKS}
    return {
        **consistency,
        "violations": violations,
        "ok": all(v == 0 for v in violations.values()),
        "set_aside_for_retention": {k: consistency["violations"].get(k) for k in EVENT_CHECKS},
    }


@contextlib.contextmanager
def webhook_sink() -> Iterator[str]:
    """A local receiver answering 204 to every POST; yields its URL."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *_: Any) -> None:
            pass

        def do_POST(self) -> None:  # noqa: N802 - http.server's naming
            self.rfile.read(int(self.headers.get("Content-Length", "0")))
            self.send_response(204)
            self.end_headers()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/hook"
    finally:
        server.shutdown()
        server.server_close()


def register_endpoint(base_url: str, api: str, secret_key: str, url: str) -> None:
    """Every event type to `url` (needs WEBHOOK_ALLOW_PRIVATE_TARGETS=1 for a loopback sink)."""
    with httpx.Client(base_url=base_url, timeout=30.0) as http:
        created = http.post(
            f"{api}/webhooks",
            json={"url": url, "events": ["*"]},
            headers={"Authorization": f"Bearer {secret_key}"},
        )
    if not created.is_success:  # the body of a success holds the signing secret: never printed
        raise RuntimeError(
            f"could not register the soak's webhook endpoint ({created.status_code}): set "
            f"WEBHOOK_ALLOW_PRIVATE_TARGETS=1 for a loopback receiver: {created.text[:200]}"
        )
