"""The gateway's Prometheus instruments, served at GET /metrics (DESIGN §1).

Labelled by the matched route pattern (`/api/v1/connect/charges/<charge_id>`), never the raw path: ids in
paths would make a new series per charge. With HTTP_WORKERS > 1 each worker counts its own requests and a
scrape sees the worker that answered it; run one worker per process (several processes) to scrape each.
"""

from __future__ import annotations

from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest

REGISTRY = CollectorRegistry()
CONTENT_TYPE = CONTENT_TYPE_LATEST

_LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
UNMATCHED = "unmatched"

HTTP_REQUESTS = Counter(
    "gateway_http_requests_total",
    "HTTP requests answered, by route pattern, method and status",
    ["route", "method", "status"],
    registry=REGISTRY,
)
HTTP_SECONDS = Histogram(
    "gateway_http_request_duration_seconds",
    "HTTP request latency, by route pattern and method",
    ["route", "method"],
    buckets=_LATENCY_BUCKETS,
    registry=REGISTRY,
)

SHED_REQUESTS = Counter(
    "gateway_requests_shed_total",
    "Requests answered 503 for overload before anything ran, by where: gateway_arrival, gateway_line, core",
    ["where"],
    registry=REGISTRY,
)


# The labelled children, looked up once per label set (`labels()` validates and locks on every call);
# the same series either way, so there are never more entries here than series in the registry.
_COUNTED: dict[tuple[str, str, int], Any] = {}
_TIMED: dict[tuple[str, str], Any] = {}


def observe_request(route: str | None, method: str, status: int, seconds: float | None) -> None:
    pattern = route or UNMATCHED
    counted = _COUNTED.get((pattern, method, status))
    if counted is None:
        counted = _COUNTED[pattern, method, status] = HTTP_REQUESTS.labels(pattern, method, str(status))
    counted.inc()
    if seconds is not None:
        timed = _TIMED.get((pattern, method))
        if timed is None:
            timed = _TIMED[pattern, method] = HTTP_SECONDS.labels(pattern, method)
        timed.observe(seconds)


def exposition() -> bytes:
    return generate_latest(REGISTRY)
